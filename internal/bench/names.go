package bench

import "crypto/rand"

// uniqueName returns a username made of prefix and a random suffix, so
// that runs, even concurrent ones, never pick the same name.
func uniqueName(prefix string) string { return prefix + "_" + rand.Text()[:10] }
