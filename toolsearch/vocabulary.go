package toolsearch

import (
	"strings"
	"sync"
)

// vocabulary are the words a word stands for in the field tools are
// described in: abbreviations ("pr", "k8s"), and everyday words for what
// tools name otherwise ("folder" for a directory). A word, in a request or
// in a tool, brings these in too. It says what any catalog would: no
// tool's or server's name is here.
var vocabulary = sync.OnceValue(buildVocabulary)

// vocabularyTable is vocabulary as written: on each line, words, a colon,
// and the words they stand for.
const vocabularyTable = `
pr prs: pull request
mr mrs: merge request
repo repos: repository
k8s kube: kubernetes
env envs: environment
db dbs: database
cfg conf config: configuration
ns: namespace
msg msgs dm dms: message
dir dirs folder folders: directory
img imgs pic pics photo photos picture pictures: image
doc docs: documentation document
info: information
app apps: application
auth: authentication
creds: credentials
js: javascript
ts: typescript
py: python
vm vms: virtual machine
svc: service
deps: dependency
pkg pkgs: package
cmd cli: command
sh bash terminal: shell command
proc procs ps: process
mem: memory
stats: statistics
calc: calculate
num: number
prod: production
dev: development
err errs: error
cert certs: certificate
admin: administrator
addr: address
org orgs: organization
proj: project
desc: description
url urls href hyperlink hyperlinks: link url
link links: url
website site webpage: page web url
browser tab: page browser
ticket tickets bug bugs: issue
todo todos: task
email emails mail: email message
phone mobile device: device phone mobile
tap press: click
screenshot: screenshot capture image
text sms: message text
spreadsheet sheet: spreadsheet sheet table
table: table
row rows record records: row record
crash crashing crashed: error
log logs: log
cat less head tail: read file
ls dir: list directory
mkdir: create directory
rm rmdir: delete file
mv: move rename file
cp: copy file
touch: create file
du: size disk
chmod chown: permission
curl wget: fetch url
google bing: web search
lgtm approve approval: review approve
ship squash: merge
emoji thumbs: reaction
hover mouseover: hover
dropdown combobox: select option
keystroke keypress: press key
console devtools: console
cites citing citation: paper related
coords gps latlng: latitude longitude coordinates
dba sql: database query
`

// buildVocabulary reads vocabularyTable, at first use rather than at
// start-up.
func buildVocabulary() map[string][]string {
	vocab := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(vocabularyTable), "\n") {
		from, to, _ := strings.Cut(line, ":")
		for _, w := range strings.Fields(from) {
			vocab[w] = strings.Fields(to)
		}
	}
	return vocab
}

// operations are the verbs that ask for one of a few operations, and those
// operations: a request's "get rid of" and a tool's "uninstall" both ask
// to delete; "open" a file reads it, "open" an issue creates one. Phrases
// of two words are written with "_".
// They are built at first use rather than at start-up.
var operations = sync.OnceValue(func() map[string][]string {
	ops := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(`
create: create add new make generate insert post submit register build compose draft write spawn set_up spin_up open leave file
read: read open view display fetch retrieve load inspect describe download cat print see look_at show check pull_up
update: update edit modify change rename replace patch adjust tweak set move reassign close reopen toggle pause resume enable disable assign
delete: delete remove erase drop destroy uninstall purge trash wipe unlink discard get_rid take_down tear_down clear cancel kill
list: list enumerate browse every
search: search find query lookup look_up locate discover grep seek
run: run execute exec launch start invoke trigger perform eval install deploy
`), "\n") {
		op, verbs, _ := strings.Cut(line, ":")
		for _, v := range strings.Fields(verbs) {
			ops[v] = append(ops[v], "~"+op)
		}
	}
	return ops
})

// operationsOf are the operations the word at i of ws asks for, alone or
// with the word after it ("get rid", "look up"), as terms ("~delete").
func operationsOf(ws []string, i int) []string {
	if i+1 < len(ws) {
		if ops, ok := operations()[ws[i]+"_"+ws[i+1]]; ok {
			return ops
		}
	}
	return operations()[ws[i]]
}
