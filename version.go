package scribe

// Version is this SDK's semantic version; it is sent in the User-Agent.
const Version = "0.3.0"

// InterfaceVersion is the version of the Plugin Integration Service interface
// description this SDK speaks.
const InterfaceVersion = "1.0.0"
