// Command hello is the program testmain's own test builds.
package main

import "fmt"

func main() { fmt.Println("hello") }
