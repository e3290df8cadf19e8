package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"artifactflow/backend/sandbox"
)

// warmPDF is a one-page PDF with one line of text, which WarmPDFReader reads.
func warmPDF() []byte {
	content := "BT /F1 12 Tf 72 720 Td (warm) Tj ET"
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

var (
	warmMu     sync.Mutex
	warmCancel context.CancelCauseFunc // cancels the WarmPDFReader in progress; nil when none
)

// ErrWarmUpPreempted is WarmPDFReader's error when a PDF read the user asked for started
// meanwhile and stopped it: that read runs at normal priority and fills the cache itself.
var ErrWarmUpPreempted = errors.New("PDF: the warm-up gave way to a PDF read")

// preemptWarmUp stops a WarmPDFReader in progress (its child at the lowest priority is
// killed), so that a PDF read never waits behind it or compiles beside it.
func preemptWarmUp() {
	warmMu.Lock()
	defer warmMu.Unlock()
	if warmCancel != nil {
		warmCancel(ErrWarmUpPreempted)
	}
}

// WarmPDFReader reads a one-page PDF made here through the same child process as
// PDFToText, at the lowest CPU priority (sandbox.Limits.LowPriority), so that the first
// PDF the user reads costs what later ones cost: PDFium's compiled module is then in its
// cache folder (compiling it takes seconds; loading it from there a fraction of one) and
// the job host's executable is in memory. A PDFToText called meanwhile stops it
// (ErrWarmUpPreempted): on a busy machine the lowest-priority child could keep a user's
// read waiting for long. The child is killed when ctx is done (the
// error then wraps ctx's). Errors are PDFToText's.
func WarmPDFReader(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	warmMu.Lock()
	warmCancel = cancel
	warmMu.Unlock()
	defer func() {
		warmMu.Lock()
		warmCancel = nil
		warmMu.Unlock()
	}()
	_, text, err := pdfToText(ctx, warmPDF(), warmPDFLimits)
	if err != nil {
		if errors.Is(context.Cause(ctx), ErrWarmUpPreempted) {
			return fmt.Errorf("%w: %w", ErrWarmUpPreempted, err)
		}
		return err
	}
	if text == "" {
		return errors.New("PDF: the reader read no text from its warm-up page")
	}
	return nil
}

// warmPDFLimits are pdfLimits at the lowest CPU priority, with time for PDFium's first
// compilation at that priority on a busy machine.
var warmPDFLimits = func() (l sandbox.Limits) {
	l = pdfLimits
	l.LowPriority = true
	l.Timeout = 3 * time.Minute
	return l
}()
