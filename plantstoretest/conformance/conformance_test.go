package conformance_test

import (
	"os"
	"testing"

	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/plantstoretest/conformance"
)

func TestNewServer(t *testing.T) {
	srv := plantstoretest.NewServer(t)
	var rep conformance.Report
	conformance.Run(t, conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken, Report: &rep})
	rep.WriteText(os.Stdout)
}
