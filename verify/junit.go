package verify

import (
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// The JUnit XML a report is written as: the shape Jenkins, GitLab,
// GitHub's test-report actions and Buildkite read.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Skipped   int         `xml:"skipped,attr"`
		Time      string      `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr"`
		Cases     []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Classname string        `xml:"classname,attr"`
		Name      string        `xml:"name,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitFailure `xml:"failure,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes the report as JUnit XML: one test suite, one test case
// per file and budget (its class the file, its name the budget), each
// failed case with its reasons, and a failed case named "exists" for each
// path named that is not there. Skipped files are not cases: their count
// is the suite's skipped. started is when the run began.
func WriteJUnit(w io.Writer, rep *Report, started time.Time) error {
	suite := junitSuite{Name: "folio verify", Skipped: rep.Skipped, Timestamp: started.UTC().Format("2006-01-02T15:04:05")}
	total := 0.0
	for _, c := range rep.Cases {
		name, kind := fmt.Sprintf("max_tokens=%d", c.MaxTokens), "fidelity"
		if c.MaxTokens == 0 {
			name, kind = "exists", "not_found"
		}
		jc := junitCase{Classname: displayName(c.URI), Name: name, Time: seconds(c.Seconds)}
		if len(c.Failures) > 0 {
			suite.Failures++
			jc.Failure = &junitFailure{Message: c.Failures[0], Type: kind, Text: strings.Join(c.Failures, "\n")}
		}
		total += c.Seconds
		suite.Cases = append(suite.Cases, jc)
	}
	suite.Tests, suite.Time = len(suite.Cases), seconds(total)
	doc := junitSuites{Name: "folio verify", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteAnnotations writes each failed case as a GitHub Actions workflow
// command, which the run's summary and the pull request show by the file:
// its path relative to workspace when it is under it.
func WriteAnnotations(w io.Writer, rep *Report, workspace string) error {
	for _, c := range rep.Cases {
		if len(c.Failures) == 0 {
			continue
		}
		path := displayName(c.URI)
		if rel, err := filepath.Rel(workspace, path); workspace != "" && err == nil && !strings.HasPrefix(rel, "..") {
			path = rel
		}
		title := fmt.Sprintf("folio verify at max_tokens %d", c.MaxTokens)
		if c.MaxTokens == 0 {
			title = "folio verify: not there"
		}
		if _, err := fmt.Fprintf(w, "::error file=%s,line=1,title=%s::%s\n", escapeProperty(path), escapeProperty(title), escapeData(strings.Join(c.Failures, "\n"))); err != nil {
			return err
		}
	}
	return nil
}

// displayName is a case's file as a person names it: the path of a
// file:// URI, the URI or name otherwise.
func displayName(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" {
		return u.Path
	}
	return uri
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
