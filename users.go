package scribe

// User is the platform user an installation belongs to, as GET /users/me
// returns it.
type User struct {
	ID           int64  `json:"id"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	EmailAddress string `json:"email_address"`
}
