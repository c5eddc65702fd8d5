package nopkgdoc

// Documented is documented, but the package is not.
func Documented() {}
