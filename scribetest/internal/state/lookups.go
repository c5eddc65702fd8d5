package state

import "iter"

// The look-ups of a Tx, for changes that depend on what is there, such as
// the resources of a fixture document, each checked before it is added.

// IDs is the ids of one kind of resource, and its rows.
type IDs interface {
	// Taken reports whether a resource has id.
	Taken(id int64) bool
	// Reserve makes the ids assigned from now on follow id.
	Reserve(id int64)
	// Rows yields every resource, by ascending id.
	Rows() iter.Seq[any]
}

// IDs returns the ids of the resources of a fixture document's section:
// "users", "plugins", "secret_keys", "installations", "transcripts" or
// "webhooks".
func (tx *Tx) IDs(section string) IDs {
	st := tx.st
	return map[string]IDs{"users": st.users, "plugins": st.plugins, "secret_keys": st.secretKeys,
		"installations": st.installs, "transcripts": st.transcripts, "webhooks": st.webhooks}[section]
}

// DeveloperKey returns user id's developer key, "" for a user who is not a developer.
func (tx *Tx) DeveloperKey(id int64) string { return tx.st.developers[id] }
