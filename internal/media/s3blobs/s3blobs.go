// Package s3blobs keeps the blobs of media in a bucket of an
// S3-compatible object store (AWS S3, SeaweedFS, MinIO, Ceph's radosgw,
// Garage…), which several servers share: one object per blob, its key the
// blob's name after an optional prefix.
//
// It speaks S3 through github.com/minio/minio-go/v7, a maintained client
// of the whole protocol (signatures v4, multipart uploads, listings,
// batch deletes) that works with every S3-compatible server. Errors are
// classified as the rest of retwis does: a missing object wraps
// fs.ErrNotExist, an object store that cannot be reached or is failing
// is a retwis.Unavailable error (the pages ask to try again), anything
// else is Internal.
package s3blobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Options tell where the bucket is and how to sign requests to it.
type Options struct {
	// Endpoint is the object store's address: host:port, or a URL
	// (http://host:port or https://host: its scheme, not Secure, says
	// whether to use https).
	Endpoint string
	// Bucket is the bucket's name.
	Bucket string
	// AccessKey and SecretKey sign every request (S3's signature v4).
	AccessKey, SecretKey string
	// Region is the bucket's region ("" lets the client ask the store).
	Region string
	// Secure is set for https.
	Secure bool
	// Prefix, if not empty, is put before every blob's name in its key,
	// after a "/" (Prefix "media" keeps "1/2/original.jpg" as
	// "media/1/2/original.jpg"), so that a bucket can hold other things.
	Prefix string
}

// maxRetries is how many times the client tries a request that failed
// for want of an answer: a few, quickly, since the caller's deadline
// bounds them all and an outage is better reported than waited out.
const maxRetries = 3

// Store keeps blobs as objects of a bucket.
type Store struct {
	client *minio.Client
	bucket string
	prefix string
}

// New returns a Store of the objects of o.Bucket. It checks that the
// bucket exists, and creates it if it does not: that needs credentials
// allowed to create buckets (s3:CreateBucket); with credentials limited
// to the bucket's objects, create the bucket beforehand.
func New(ctx context.Context, o Options) (*Store, error) {
	host, secure, err := endpoint(o.Endpoint, o.Secure)
	if err != nil {
		return nil, err
	}
	client, err := minio.New(host, &minio.Options{
		Creds:      credentials.NewStaticV4(o.AccessKey, o.SecretKey, ""),
		Secure:     secure,
		Region:     o.Region,
		MaxRetries: maxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("s3blobs: endpoint %s: %w", o.Endpoint, err)
	}
	s := &Store{client: client, bucket: o.Bucket, prefix: keyPrefix(o.Prefix)}
	if err := s.ensureBucket(ctx, o.Region); err != nil {
		return nil, err
	}
	return s, nil
}

// endpoint is the host:port of an Endpoint option and whether to use
// https.
func endpoint(e string, secure bool) (string, bool, error) {
	if !strings.Contains(e, "://") {
		if e == "" {
			return "", false, errors.New("s3blobs: no endpoint")
		}
		return e, secure, nil
	}
	u, err := url.Parse(e)
	if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false, fmt.Errorf("s3blobs: endpoint %q is not http(s)://host[:port]", e)
	}
	return u.Host, u.Scheme == "https", nil
}

// keyPrefix is the prefix of the keys of a Prefix option: "" or the
// prefix with one "/" after it.
func keyPrefix(p string) string {
	p = strings.Trim(p, "/")
	if p == "" {
		return ""
	}
	return p + "/"
}

// ensureBucket creates the bucket if it does not exist.
func (s *Store) ensureBucket(ctx context.Context, region string) error {
	ok, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return s.fail(err, "check bucket %s", s.bucket)
	}
	if ok {
		return nil
	}
	err = s.client.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: region})
	if err != nil && !alreadyOwned(err) {
		return s.fail(err, "create bucket %s", s.bucket)
	}
	return nil
}

// alreadyOwned reports whether err says the bucket was already ours (a
// server beside us created it meanwhile).
func alreadyOwned(err error) bool {
	return minio.ToErrorResponse(err).Code == "BucketAlreadyOwnedByYou"
}

// Put stores data under name with its content type, replacing what was
// there.
func (s *Store) Put(ctx context.Context, name, contentType string, data []byte) error {
	_, err := s.client.PutObject(ctx, s.bucket, s.prefix+name, bytes.NewReader(data), int64(len(data)),
		minio.PutObjectOptions{ContentType: contentType})
	if err != nil {
		return s.fail(err, "put %s", name)
	}
	return nil
}

// Open returns the blob's content and size; an error wrapping
// fs.ErrNotExist if there is none (or name is empty or ends in "/").
func (s *Store) Open(ctx context.Context, name string) (io.ReadCloser, int64, error) {
	if name == "" || strings.HasSuffix(name, "/") {
		// Not a blob's name, though some stores (SeaweedFS) answer
		// with a directory for it.
		return nil, 0, fmt.Errorf("s3blobs: open %q: not a blob's name: %w", name, fs.ErrNotExist)
	}
	obj, err := s.client.GetObject(ctx, s.bucket, s.prefix+name, minio.GetObjectOptions{})
	if err != nil {
		return nil, 0, s.fail(err, "open %s", name)
	}
	info, err := obj.Stat()
	if err != nil {
		obj.Close()
		return nil, 0, s.fail(err, "open %s", name)
	}
	return obj, info.Size, nil
}

// Delete removes every blob whose name starts with prefix; none is not
// an error. The keys are listed first, then removed in batches (S3's
// DeleteObjects); an error of one is returned after the others are
// tried.
func (s *Store) Delete(ctx context.Context, prefix string) error {
	var keys []string
	err := s.list(ctx, prefix, func(o minio.ObjectInfo) error {
		keys = append(keys, o.Key)
		return nil
	})
	if err != nil {
		return s.fail(err, "delete %q", prefix)
	}
	objects := make(chan minio.ObjectInfo, len(keys))
	for _, k := range keys {
		objects <- minio.ObjectInfo{Key: k}
	}
	close(objects)
	var first error
	for e := range s.client.RemoveObjects(ctx, s.bucket, objects, minio.RemoveObjectsOptions{}) {
		if first == nil {
			first = s.fail(e.Err, "delete %s", strings.TrimPrefix(e.ObjectName, s.prefix))
		}
	}
	return first
}

// Walk calls fn with the name and size of every blob whose name starts
// with prefix ("" for all), in name order, until fn returns an error,
// which Walk returns.
func (s *Store) Walk(ctx context.Context, prefix string, fn func(name string, size int64) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stopped error
	err := s.list(ctx, prefix, func(o minio.ObjectInfo) error {
		if stopped = fn(strings.TrimPrefix(o.Key, s.prefix), o.Size); stopped != nil {
			return stopped
		}
		return nil
	})
	switch {
	case stopped != nil:
		return stopped
	case err != nil:
		return s.fail(err, "walk %q", prefix)
	}
	return nil
}

// list calls fn with every object whose key starts with the store's
// prefix and prefix, in key order, until fn or the listing fails.
func (s *Store) list(ctx context.Context, prefix string, fn func(minio.ObjectInfo) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the listing's goroutine when fn stops early
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}) {
		if o.Err != nil {
			return o.Err
		}
		if err := fn(o); err != nil {
			return err
		}
	}
	return ctx.Err()
}
