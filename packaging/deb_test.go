package packaging

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// debPath returns the .deb to inspect: AF_DEB when set (`make package` sets it; then it
// must exist), else the one build/package holds; it skips when there is none.
func debPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AF_DEB"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("AF_DEB: %v", err)
		}
		return p
	}
	found, _ := filepath.Glob("../build/package/artifactflow_*_amd64.deb")
	if len(found) == 0 {
		t.Skip("no .deb in build/package: `make package` builds one and runs this test on it")
	}
	return found[len(found)-1]
}

// dpkgDeb runs dpkg-deb with args and returns its output.
func dpkgDeb(t *testing.T, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("no dpkg-deb to inspect the package with")
	}
	out, err := exec.Command("dpkg-deb", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("dpkg-deb %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestDeb inspects the Linux package: its control fields, its file list with modes and the
// /usr/bin link, the desktop entry (desktop-file-validate when installed; Exec and Icon
// resolve to files the package holds), and that the libraries the window build links are
// the ones Depends names while the command line links no GTK.
func TestDeb(t *testing.T) {
	deb := debPath(t)

	fields := map[string]string{}
	for _, f := range []string{"Package", "Architecture", "Version", "Depends", "Maintainer", "Description"} {
		fields[f] = strings.TrimSpace(dpkgDeb(t, "-f", deb, f))
	}
	if fields["Package"] != "artifactflow" || fields["Architecture"] != "amd64" {
		t.Errorf("Package %q, Architecture %q; want artifactflow, amd64", fields["Package"], fields["Architecture"])
	}
	for _, f := range []string{"Version", "Maintainer", "Description"} {
		if fields[f] == "" {
			t.Errorf("control field %s is empty", f)
		}
	}
	depends := map[string]bool{}
	for _, d := range strings.Split(fields["Depends"], ",") {
		for _, alt := range strings.Split(d, "|") {
			depends[strings.Fields(alt)[0]] = true
		}
	}
	for _, want := range []string{"libgtk-3-0", "libwebkit2gtk-4.1-0", "libc6"} {
		if !depends[want] {
			t.Errorf("Depends %q lacks %s", fields["Depends"], want)
		}
	}

	// dpkg-deb -c lists "mode owner/group size date time ./path [-> target]".
	listing := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(dpkgDeb(t, "-c", deb)), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			t.Fatalf("dpkg-deb -c line %q", line)
		}
		listing[strings.TrimPrefix(f[5], ".")] = f
	}
	for path, mode := range map[string]string{
		"/usr/lib/artifactflow/artifactflow":                     "-rwxr-xr-x",
		"/usr/lib/artifactflow/artifactflow-window":              "-rwxr-xr-x",
		"/usr/share/applications/artifactflow.desktop":           "-rw-r--r--",
		"/usr/share/icons/hicolor/256x256/apps/artifactflow.png": "-rw-r--r--",
		"/usr/share/icons/hicolor/512x512/apps/artifactflow.png": "-rw-r--r--",
	} {
		f, ok := listing[path]
		if !ok {
			t.Errorf("the package lacks %s", path)
			continue
		}
		if f[0] != mode || f[1] != "root/root" {
			t.Errorf("%s: %s %s, want %s root/root", path, f[0], f[1], mode)
		}
	}
	if f := listing["/usr/bin/artifactflow"]; len(f) < 8 || f[0][0] != 'l' || f[7] != "/usr/lib/artifactflow/artifactflow" {
		t.Errorf("/usr/bin/artifactflow = %v, want a link to /usr/lib/artifactflow/artifactflow", f)
	}

	root := t.TempDir()
	dpkgDeb(t, "-x", deb, root)
	desktop := filepath.Join(root, "usr/share/applications/artifactflow.desktop")
	if _, err := exec.LookPath("desktop-file-validate"); err == nil {
		// Hints (such as two main categories) are not errors; errors and warnings are.
		out, err := exec.Command("desktop-file-validate", "--no-hints", desktop).CombinedOutput()
		if err != nil || len(strings.TrimSpace(string(out))) > 0 {
			t.Errorf("desktop-file-validate: %v\n%s", err, out)
		}
	} else {
		t.Log("no desktop-file-validate (Debian: desktop-file-utils); the entry's keys are checked below only")
	}
	entry := readDesktopEntry(t, desktop)
	if entry["Type"] != "Application" || entry["Name"] == "" || entry["Terminal"] != "false" {
		t.Errorf("desktop entry Type %q, Name %q, Terminal %q", entry["Type"], entry["Name"], entry["Terminal"])
	}
	// The entry starts the window build itself: no hand-over from the window-less build
	// (which the window build then finds beside itself as its parsers' job host).
	if exe := strings.Fields(entry["Exec"]); len(exe) == 0 || exe[0] != "/usr/lib/artifactflow/artifactflow-window" {
		t.Errorf("Exec = %q, want /usr/lib/artifactflow/artifactflow-window", entry["Exec"])
	} else if _, ok := listing[exe[0]]; !ok {
		t.Errorf("Exec names %s, which the package does not hold", exe[0])
	}
	if _, ok := listing["/usr/share/icons/hicolor/256x256/apps/"+entry["Icon"]+".png"]; !ok {
		t.Errorf("Icon = %q names no icon the package holds", entry["Icon"])
	}
	cats := strings.Split(strings.TrimSuffix(entry["Categories"], ";"), ";")
	if !slices.Contains(cats, "Office") || !slices.Contains(cats, "Education") {
		t.Errorf("Categories = %q, want Office and Education", entry["Categories"])
	}

	// The window build links WebKitGTK 4.1 and GTK 3 (what Depends names); the command
	// line build links neither, so `artifactflow ask` runs where they are missing.
	libs := func(p string) []string {
		f, err := elf.Open(filepath.Join(root, p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		defer f.Close()
		l, err := f.ImportedLibraries()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return l
	}
	window, light := libs("usr/lib/artifactflow/artifactflow-window"), libs("usr/lib/artifactflow/artifactflow")
	for _, want := range []string{"libwebkit2gtk-4.1.so.0", "libgtk-3.so.0"} {
		if !slices.Contains(window, want) {
			t.Errorf("artifactflow-window links %v, not %s", window, want)
		}
		if slices.Contains(light, want) {
			t.Errorf("artifactflow links %s", want)
		}
	}
}

// readDesktopEntry returns the keys of the [Desktop Entry] group of the file at path.
func readDesktopEntry(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	group := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			group = line
		case group == "[Desktop Entry]":
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("desktop entry line %q has no =", line)
			}
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
