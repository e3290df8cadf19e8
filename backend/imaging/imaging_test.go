package imaging

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

// picture encodes a w×h gradient in format ("png", "jpeg" or "gif").
func picture(t *testing.T, format string, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, img, nil)
	case "gif":
		err = gif.Encode(&buf, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// withPNGSize returns a PNG whose header claims w×h pixels (a valid IHDR with its CRC).
func withPNGSize(t *testing.T, w, h int) []byte {
	data := append([]byte(nil), picture(t, "png", 4, 4)...)
	binary.BigEndian.PutUint32(data[16:], uint32(w))
	binary.BigEndian.PutUint32(data[20:], uint32(h))
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29]))
	return data
}

// A tiny lossless WebP (1×1), as cwebp writes it.
var webp1x1 = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    []byte
		want    Info
		wantErr error
	}{
		{"png", picture(t, "png", 30, 20), Info{"image/png", 30, 20}, nil},
		{"jpeg", picture(t, "jpeg", 16, 40), Info{"image/jpeg", 16, 40}, nil},
		{"gif", picture(t, "gif", 8, 8), Info{"image/gif", 8, 8}, nil},
		{"webp", webp1x1, Info{"image/webp", 1, 1}, nil},
		{"text named .png", []byte("just some notes, not a picture"), Info{}, ErrNotImage},
		{"html", []byte("<html><body>hi</body></html>"), Info{}, ErrNotImage},
		{"truncated png", picture(t, "png", 30, 20)[:12], Info{}, ErrNotImage},
		{"empty", nil, Info{}, ErrNotImage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Sniff(tc.data)
			if !errors.Is(err, tc.wantErr) || got != tc.want {
				t.Errorf("Sniff = %+v, %v; want %+v, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

func TestForModel(t *testing.T) {
	small := picture(t, "png", 64, 48)
	for _, tc := range []struct {
		name        string
		data        []byte
		wantMIME    string
		wantW       int
		wantH       int
		wantResized bool
		wantErr     error
	}{
		{"small png is sent as it is", small, "image/png", 64, 48, false, nil},
		{"wide png is scaled to 2048 px", picture(t, "png", 3000, 600), "image/png", 2048, 409, true, nil},
		{"tall jpeg is scaled and stays jpeg", picture(t, "jpeg", 500, 2500), "image/jpeg", 409, 2048, true, nil},
		{"not a picture", []byte("%PDF-1.7 not a picture"), "", 0, 0, false, ErrNotImage},
		{"decompression bomb", withPNGSize(t, 20000, 20000), "", 0, 0, false, ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, mime, resized, err := ForModel(tc.data)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			info, serr := Sniff(out)
			if serr != nil || mime != tc.wantMIME || info.MIME != mime || info.Width != tc.wantW || info.Height != tc.wantH || resized != tc.wantResized {
				t.Errorf("got %s %+v resized %v (%v); want %s %d×%d resized %v", mime, info, resized, serr, tc.wantMIME, tc.wantW, tc.wantH, tc.wantResized)
			}
			if len(out) > MaxBytes {
				t.Errorf("%d bytes, over MaxBytes", len(out))
			}
			if !tc.wantResized && !bytes.Equal(out, tc.data) {
				t.Error("a picture within the limits was changed")
			}
		})
	}
}

func TestHasImageName(t *testing.T) {
	for name, want := range map[string]bool{"a.png": true, "B.JPG": true, "c.jpeg": true, "d.gif": true, "e.WebP": true,
		"f.pdf": false, "png": false, "g.png.txt": false} {
		if got := HasImageName(name); got != want {
			t.Errorf("HasImageName(%q) = %v", name, got)
		}
	}
}
