// Package verify checks reconstruction fidelity: it pages every text file
// under the given paths at every budget and checks that each page fits its
// budget (recounted from the page's own bytes), that the pages give back the
// file byte for byte, and that the version is the BLAKE3 of those bytes.
package verify
