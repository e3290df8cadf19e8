// Command artifactflow is the ArtifactFlow Desktop window and its command line
// (DESIGN.md, "Command line"). All logic lives in package app and backend/.
package main

import (
	"embed"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"

	"artifactflow/app"
)

//go:embed all:frontend/dist
var assets embed.FS

func main() {
	c := &app.Core{}
	_ = wails.Run(&options.App{
		Title:       "ArtifactFlow",
		Width:       1280,
		Height:      860,
		AssetServer: &assetserver.Options{Assets: assets},
		Bind:        c.Bindings(),
	})
}
