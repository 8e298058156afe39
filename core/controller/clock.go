package controller

import (
	"time"

	"k8s.io/utils/clock"
)

// idleClock is the real clock, except that its tickers never tick.
// client-go's delaying queue uses a ticker only as a 10 s "insurance"
// heartbeat beside the timers it sets for each delayed item; that heartbeat
// would wake an idle daemon every 10 s. The timers, which carry all real
// delays, are untouched.
type idleClock struct{ clock.RealClock }

func (idleClock) NewTicker(time.Duration) clock.Ticker { return stoppedTicker{} }

type stoppedTicker struct{}

func (stoppedTicker) C() <-chan time.Time { return nil }
func (stoppedTicker) Stop()               {}
