package auth

// WithMintHook makes a TokenSource call f after each mint, while it still
// holds the mint lock: tests count mints and hold a mint in progress.
func WithMintHook(f func()) SourceOption {
	return SourceOption{func(c *sourceConfig) error { c.onMint = f; return nil }}
}
