// Package fold keeps large tool answers out of the model's context.
//
// An answer whose JSON is over a threshold is folded: the model gets a
// preview (each list cut to its first items, each string to its first
// characters), a shape (the structure, with lengths and the merged shape of
// list items) and a handle. The whole answer is kept in a Store, encrypted
// under a key derived from a server secret, the handle, the session and the
// subject, and read back in slices with Folder.Query, which is what the
// result_query tool runs. Nothing here knows about files.
package fold
