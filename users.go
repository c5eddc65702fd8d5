package scribe

import (
	"context"
	"net/http"
)

// User is the platform user an installation belongs to, as GET /users/me
// returns it.
type User struct {
	// ID identifies the user (wire field id); the same id appears as
	// PluginInstallation.UserID and Transcript.User.ID.
	ID int64 `json:"id"`
	// FirstName is the user's first name (first_name); "" when the user
	// has none.
	FirstName string `json:"first_name"`
	// LastName is the user's last name (last_name); "" when the user has
	// none.
	LastName string `json:"last_name"`
	// EmailAddress is the user's email address (email_address); "" when
	// the user has none.
	EmailAddress string `json:"email_address"`
}

func (u *User) unidentified([]byte) (string, string) { return positiveID(u.ID) }

// GetMe returns the user the installation token belongs to; it needs an
// installation token of a plugin with user permission "read".
//
// It sends GET /users/me.
func (c *Client) GetMe(ctx context.Context, opts ...Option) (*User, error) {
	var u User
	if _, err := c.do(ctx, newRequest("GetMe", http.MethodGet, "/users/me"), &u, opts); err != nil {
		return nil, err
	}
	return &u, nil
}
