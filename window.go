//go:build !nowindow

package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/logger"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"artifactflow/app"
	"artifactflow/app/cli"
	"artifactflow/backend/config"
	"artifactflow/backend/events"
	"artifactflow/backend/sandbox"
	"artifactflow/internal/timeline"
)

// lightName is the window-less build (tag nowindow) that `make build` and the packages
// install beside this one.
const lightName = "artifactflow"

// useLightJobHost: started directly (the Linux desktop entry starts this build, skipping
// the window-less build's hand-over), this build runs the parsers' children from the
// window-less build beside it when there is one, as after the hand-over (a child then
// skips WebKitGTK's libraries; docs/ARCHITECTURE.md, "Start-up"). A job host named at
// start-up (the hand-over's ARTIFACTFLOW_JOB_HOST) wins.
func useLightJobHost() {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return
	}
	if light := lightBeside(self); light != "" {
		sandbox.UseJobHost(light)
	}
}

// lightBeside returns the window-less build beside the executable self (an absolute
// path, links resolved): artifactflow (.exe on Windows) in the same folder when it is a
// regular, executable file other than self; "" otherwise.
func lightBeside(self string) string {
	name := lightName
	if goruntime.GOOS == "windows" {
		name += ".exe"
	}
	light := filepath.Join(filepath.Dir(self), name)
	fi, err := os.Stat(light)
	if err != nil || !fi.Mode().IsRegular() || (goruntime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0) {
		return ""
	}
	if me, err := os.Stat(self); err == nil && os.SameFile(fi, me) {
		return ""
	}
	return light
}

// launch is nil: this build opens the window itself.
var launch cli.LaunchFunc

// window runs the Wails window on core until the user closes it. Run events reach the
// page as runtime events named app.RunEventName.
func window(core *app.Core) error {
	var removeSink func()
	timeline.Mark("wails.Run")
	return wails.Run(&options.App{
		Title:       "ArtifactFlow",
		Width:       1280,
		Height:      860,
		MinWidth:    960,
		MinHeight:   600,
		AssetServer: &assetserver.Options{Assets: assets, Middleware: timedAssets},
		Logger:      pageLogger{logger.NewDefaultLogger()},
		// Navigation away from the app is refused in the page (frontend/src/markdown/navigation.ts):
		// Wails v2 has no navigation-policy hook (on Linux it connects no decide-policy
		// handler to the WebKitGTK view and exposes no view to connect one). Should the
		// window still reach another origin, Wails refuses its bound calls: only the start
		// URL's origin may use them (BindingsAllowedOrigins is left empty on purpose).
		// Files dropped anywhere on the window reach the page as paths (runtime OnFileDrop),
		// which it uploads through ArtifactService.UploadPaths. DisableWebViewDrop stays
		// off: on Linux it unsets the web view as a GTK drop target, so no drop arrives at
		// all (a bug of Wails v2 on Linux, seen under Xvfb). The page cancels the drag's default so
		// the web view never opens a dropped file (frontend listenForDrops).
		DragAndDrop:      &options.DragAndDrop{EnableFileDrop: true},
		BackgroundColour: &options.RGBA{R: 248, G: 249, B: 251, A: 1},
		OnStartup: func(ctx context.Context) {
			timeline.Mark("Wails OnStartup")
			core.SetDialogs(dialogs{ctx})
			removeSink = core.AddSink(app.SinkFunc(func(ev events.Event) {
				runtime.EventsEmit(ctx, app.RunEventName, ev)
			}))
		},
		OnDomReady: func(context.Context) { timeline.Mark("Wails OnDomReady") },
		OnShutdown: func(context.Context) {
			if removeSink != nil {
				removeSink()
			}
		},
		Bind: core.Bindings(),
		// A bound method's error reaches the page as the JSON of its app.AppError (code,
		// message, fields, retryable): the page switches on the code.
		ErrorFormatter: app.FormatBoundError,
	})
}

// pageLogger is Wails' default logger, except that the page's timeline line
// (timeline.PagePrefix, printed through LogPrint) is dropped unless the timeline is on.
type pageLogger struct{ logger.Logger }

// Print prints message unless it is the page's timeline while the timeline is off.
func (l pageLogger) Print(message string) {
	if !timeline.On() && strings.HasPrefix(message, timeline.PagePrefix) {
		return
	}
	l.Logger.Print(message)
}

// timedAssets marks on the timeline when each asset of the page was asked for and when it
// was served (a pass-through while the timeline is off).
func timedAssets(next http.Handler) http.Handler {
	if !timeline.On() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		timeline.Mark("asset asked: " + r.URL.Path)
		next.ServeHTTP(w, r)
		timeline.Mark("asset served: " + r.URL.Path)
	})
}

// dialogs are the window's native dialogs (app.Dialogs, app.FolderChooser, app.FileDialogs).
type dialogs struct{ ctx context.Context }

var _ app.FileDialogs = dialogs{}

// ChooseFolder shows the native folder dialog (app.FolderChooser); "" means the user
// cancelled.
func (d dialogs) ChooseFolder(title, defaultDir string) (string, error) {
	return runtime.OpenDirectoryDialog(d.ctx, runtime.OpenDialogOptions{
		Title: title, DefaultDirectory: defaultDir, CanCreateDirectories: true,
	})
}

// SaveFile shows the native save dialog starting in defaultDir; "" means the user
// cancelled.
func (d dialogs) SaveFile(defaultDir, defaultName string) (string, error) {
	return runtime.SaveFileDialog(d.ctx, runtime.SaveDialogOptions{
		Title: "Export artifact", DefaultDirectory: defaultDir, DefaultFilename: defaultName, CanCreateDirectories: true,
	})
}

// SaveFileAs shows the native save dialog with a title and a file type filter
// (app.FileDialogs); "" means the user cancelled.
func (d dialogs) SaveFileAs(title, defaultDir, defaultName, filterName, pattern string) (string, error) {
	return runtime.SaveFileDialog(d.ctx, runtime.SaveDialogOptions{
		Title: title, DefaultDirectory: defaultDir, DefaultFilename: defaultName, CanCreateDirectories: true,
		Filters: []runtime.FileFilter{{DisplayName: filterName, Pattern: pattern}},
	})
}

// OpenFileOf shows the native open dialog for one file with a title and a file type filter
// (app.FileDialogs); "" means the user cancelled.
func (d dialogs) OpenFileOf(title, defaultDir, filterName, pattern string) (string, error) {
	return runtime.OpenFileDialog(d.ctx, runtime.OpenDialogOptions{
		Title: title, DefaultDirectory: defaultDir,
		Filters: []runtime.FileFilter{{DisplayName: filterName, Pattern: pattern}},
	})
}

// showStartError is the window build's cli.Env.StartFailed: when the window cannot start
// (a damaged artifactflow.db, an unreadable config.json, a local API that cannot listen),
// it opens a small window with the message (startErrorPage, in the system's language)
// instead of none at all, since a user who started it from a desktop launcher has no
// terminal to read. It returns when the user closes that window.
func showStartError(err error) {
	page := startErrorPage(err, config.UILanguage("", os.Getenv))
	_ = wails.Run(&options.App{
		Title:  "ArtifactFlow",
		Width:  760,
		Height: 420,
		AssetServer: &assetserver.Options{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, page)
		})},
		BackgroundColour: &options.RGBA{R: 248, G: 249, B: 251, A: 1},
	})
}
