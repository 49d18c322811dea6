package media

import (
	"context"
	"fmt"
	"io"
)

// Copy copies every blob of src to dst under the same name, but those
// dst holds already with the same size (so a copy that stopped resumes
// where it was), calling progress after each blob with how many it has
// looked at and copied; it returns how many it copied. It is how an
// instance moves its media from one storage to another (retwis media
// migrate).
func Copy(ctx context.Context, dst, src Blobs, progress func(seen, copied int)) (int, error) {
	have := map[string]int64{}
	if err := dst.Walk(ctx, "", func(name string, size int64) error { have[name] = size; return nil }); err != nil {
		return 0, fmt.Errorf("media: copy: list the destination: %w", err)
	}
	seen, copied := 0, 0
	err := src.Walk(ctx, "", func(name string, size int64) error {
		seen++
		if s, ok := have[name]; !ok || s != size {
			if err := copyBlob(ctx, dst, src, name); err != nil {
				return err
			}
			copied++
		}
		progress(seen, copied)
		return nil
	})
	return copied, err
}

// copyBlob copies blob name of src to dst.
func copyBlob(ctx context.Context, dst, src Blobs, name string) error {
	rc, _, err := src.Open(ctx, name)
	if err != nil {
		return fmt.Errorf("media: copy %s: %w", name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return fmt.Errorf("media: copy %s: %w", name, err)
	}
	if err := dst.Put(ctx, name, contentType(name), data); err != nil {
		return fmt.Errorf("media: copy %s: %w", name, err)
	}
	return nil
}
