// This comment is not a package comment: a blank line separates it.

package nopkgdoc
