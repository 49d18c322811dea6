package password_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/retwis/retwis/internal/password"
)

// cheap keeps the tests fast; the algorithm is the same.
var cheap = password.Params{Memory: 64, Time: 1, Threads: 1}

func TestHashVerify(t *testing.T) {
	for _, pw := range []string{"correct horse", "ünïcödé pässwörd", strings.Repeat("x", 128), ""} {
		t.Run(pw, func(t *testing.T) {
			h, err := password.Hash(pw, cheap)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
				t.Fatalf("hash %q is not a PHC argon2id string", h)
			}
			if ok, err := password.Verify(pw, h); err != nil || !ok {
				t.Fatalf("Verify(right password) = %v, %v", ok, err)
			}
			if ok, err := password.Verify(pw+"!", h); err != nil || ok {
				t.Fatalf("Verify(wrong password) = %v, %v", ok, err)
			}
		})
	}
}

func TestHashesAreSalted(t *testing.T) {
	a, _ := password.Hash("same password", cheap)
	b, _ := password.Hash("same password", cheap)
	if a == b {
		t.Fatal("two hashes of the same password are equal: salt missing")
	}
}

func TestVerifyMalformed(t *testing.T) {
	for _, h := range []string{
		"", "plaintext", "$argon2i$v=19$m=64,t=1,p=1$c2FsdA$a2V5",
		"$argon2id$v=18$m=64,t=1,p=1$c2FsdA$a2V5",
		"$argon2id$v=19$m=64,t=0,p=1$c2FsdA$a2V5",
		"$argon2id$v=19$m=64,t=1,p=1$!!$a2V5",
		"$argon2id$v=19$m=64,t=1,p=1$c2FsdA$",
		"$argon2id$v=19$m=64,t=1,p=1$c2FsdA",
	} {
		if ok, err := password.Verify("pw", h); err == nil || ok {
			t.Errorf("Verify(%q) = %v, %v; want ErrMalformed", h, ok, err)
		}
	}
}

func ExampleHash() {
	h, _ := password.Hash("s3cret passphrase", password.Default)
	ok, _ := password.Verify("s3cret passphrase", h)
	fmt.Println(ok)
	// Output: true
}
