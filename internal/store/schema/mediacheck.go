package schema

// MediaCheckState records, per master (its address), how far the media
// check's walk over the users' media hashes (MediaKeys) has got: a SCAN
// cursor, or "done"; deleted when a check begins and when it ends.
const MediaCheckState = "check:media"
