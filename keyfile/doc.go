// Package keyfile reads and creates files of secret keys: one key per line
// as hex digits, oldest first, blank lines and # comments ignored. A file
// that does not exist is created with one random key, mode 0600 in a
// directory of mode 0700, without ever replacing a file that a concurrent
// process created first.
package keyfile
