package mcpserver

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/time/rate"

	"github.com/folio-mcp/folio/reader"
)

// subjectLimits bound each subject's HTTP requests: how many a second
// (Config.RatePerSubject, a second's worth at once) and how many at once
// (Config.ConcurrentPerSubject), so that one caller cannot starve the
// others. It is safe for concurrent use.
type subjectLimits struct {
	rate       rate.Limit
	burst      int
	concurrent int

	mu    sync.Mutex
	of    map[string]*subjectLimit
	swept time.Time
}

// subjectLimit is one subject's state: its bucket, its requests in
// flight, when it last asked.
type subjectLimit struct {
	bucket   *rate.Limiter
	inflight int
	used     time.Time
}

// limitIdle is how long a subject's state is kept after its last request
// (its bucket is full again long before).
const limitIdle = 10 * time.Minute

func newSubjectLimits(perSecond float64, concurrent int) *subjectLimits {
	l := &subjectLimits{rate: rate.Inf, concurrent: concurrent, of: map[string]*subjectLimit{}}
	if perSecond > 0 {
		l.rate, l.burst = rate.Limit(perSecond), max(1, int(math.Ceil(perSecond)))
	}
	return l
}

// admit takes a request of subject at now: a function to call when it
// ends, or how long to wait before asking again.
func (l *subjectLimits) admit(subject string, now time.Time) (release func(), wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	st, ok := l.of[subject]
	if !ok {
		st = &subjectLimit{bucket: rate.NewLimiter(l.rate, l.burst)}
		l.of[subject] = st
	}
	st.used = now
	if l.concurrent > 0 && st.inflight >= l.concurrent {
		return nil, time.Second
	}
	if res := st.bucket.ReserveN(now, 1); !res.OK() {
		return nil, time.Second
	} else if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return nil, d
	}
	st.inflight++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		st.inflight--
	}, 0
}

// sweep drops, once a minute, the state of subjects idle for limitIdle.
func (l *subjectLimits) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Minute {
		return
	}
	l.swept = now
	for subject, st := range l.of {
		if st.inflight == 0 && now.Sub(st.used) > limitIdle {
			delete(l.of, subject)
		}
	}
}

// limitRate refuses a request past its subject's limits with 429 and a
// Retry-After. It runs after the token check, so that the subject is
// known; it counts the POSTs that carry requests (a GET's event stream is
// not one, nor a notification, so that a caller at its bound may still
// cancel a call).
func (s *Server) limitRate(next http.Handler) http.Handler {
	if s.limits == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, _ := s.requests.Load(r.Header.Get(requestKeyHeader))
		if f, ok := f.(*inflight); !ok || !f.call {
			next.ServeHTTP(w, r)
			return
		}
		subject := reader.LocalSubject
		if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
			subject = ti.UserID
		}
		release, wait := s.limits.admit(subject, time.Now())
		if release == nil {
			seconds := int(math.Ceil(wait.Seconds()))
			w.Header().Set("Retry-After", strconv.Itoa(seconds))
			http.Error(w, fmt.Sprintf("too many requests of %s: try again in %d s", subject, seconds), http.StatusTooManyRequests)
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}
