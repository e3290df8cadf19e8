// Package imaging checks and sizes the pictures a user attaches to a question or uploads:
// it recognises PNG, JPEG, GIF and WebP by their bytes (never by a file name alone), reads
// their dimensions without decoding them, and fits a picture into what one model request
// may carry.
package imaging

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	stddraw "image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"path/filepath"
	"strings"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// Limits of a picture sent to a model (ForModel). Pictures larger than MaxSide pixels on
// their longest side are scaled down to it; what is still larger than MaxBytes once
// encoded is refused. MaxPixels refuses, before decoding, a picture whose decoded size
// would be out of proportion (a "decompression bomb": 100 megapixels is 400 MB decoded).
const (
	MaxSide   = 2048
	MaxBytes  = 4 << 20
	MaxPixels = 100_000_000
)

// Errors callers branch on.
var (
	// ErrNotImage: the bytes are not a PNG, JPEG, GIF or WebP picture (whatever the name
	// says), or the picture is damaged.
	ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")
	// ErrTooLarge: the picture cannot be brought within the limits of a model request.
	ErrTooLarge = errors.New("image too large for a model request")
)

// Info is what the bytes of a picture say: its media type ("image/png", "image/jpeg",
// "image/gif" or "image/webp") and its size in pixels.
type Info struct {
	MIME          string
	Width, Height int
}

// kinds maps the leading bytes of each supported format to its media type.
var kinds = []struct {
	magic, mime string
}{
	{"\x89PNG\r\n\x1a\n", "image/png"},
	{"\xff\xd8\xff", "image/jpeg"},
	{"GIF87a", "image/gif"},
	{"GIF89a", "image/gif"},
}

// imageExts are the file extensions of the supported formats, lowercased.
var imageExts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// HasImageName reports whether name ends in .png, .jpg, .jpeg, .gif or .webp (any case).
func HasImageName(name string) bool {
	return imageExts[strings.ToLower(filepath.Ext(name))]
}

// Sniff recognises a picture by its leading bytes and reads its dimensions from its header.
// Errors: ErrNotImage (wrapped) for anything else, a truncated header included.
func Sniff(data []byte) (Info, error) {
	mime := ""
	for _, k := range kinds {
		if bytes.HasPrefix(data, []byte(k.magic)) {
			mime = k.mime
			break
		}
	}
	if mime == "" && len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP" {
		mime = "image/webp"
	}
	if mime == "" {
		return Info{}, ErrNotImage
	}
	var cfg image.Config
	var err error
	switch mime {
	case "image/png":
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
	case "image/jpeg":
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
	case "image/gif":
		cfg, err = gif.DecodeConfig(bytes.NewReader(data))
	default:
		cfg, err = webp.DecodeConfig(bytes.NewReader(data))
	}
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return Info{}, fmt.Errorf("%w: %s header: %v", ErrNotImage, mime, err)
	}
	return Info{MIME: mime, Width: cfg.Width, Height: cfg.Height}, nil
}

// ForModel returns the picture as a model request carries it: the original bytes and
// media type when its longest side is at most MaxSide and it is at most MaxBytes;
// otherwise the picture scaled (keeping its proportions) so that its longest side is at
// most MaxSide, encoded as PNG when the original is a PNG, GIF or WebP and that fits in
// MaxBytes, else as JPEG (quality 85, transparent parts on white). Resized reports whether
// it was re-encoded. Errors: ErrNotImage (wrapped) when data is no picture or cannot be
// decoded; ErrTooLarge (wrapped, naming the size) when it has more than MaxPixels pixels
// or is still over MaxBytes at MaxSide.
func ForModel(data []byte) (out []byte, mime string, resized bool, err error) {
	info, err := Sniff(data)
	if err != nil {
		return nil, "", false, err
	}
	if info.Width <= MaxSide && info.Height <= MaxSide && len(data) <= MaxBytes {
		return data, info.MIME, false, nil
	}
	if int64(info.Width)*int64(info.Height) > MaxPixels {
		return nil, "", false, fmt.Errorf("%w: %d×%d pixels (at most %d megapixels are read)", ErrTooLarge, info.Width, info.Height, MaxPixels/1_000_000)
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, "", false, fmt.Errorf("%w: %v", ErrNotImage, err)
	}
	w, h := fit(info.Width, info.Height, MaxSide)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	var buf bytes.Buffer
	if info.MIME != "image/jpeg" {
		if err := png.Encode(&buf, dst); err == nil && buf.Len() <= MaxBytes {
			return buf.Bytes(), "image/png", true, nil
		}
		buf.Reset()
	}
	flat := image.NewRGBA(dst.Bounds()) // JPEG has no transparency: lay the picture on white
	stddraw.Draw(flat, flat.Bounds(), image.NewUniform(color.White), image.Point{}, stddraw.Src)
	stddraw.Draw(flat, flat.Bounds(), dst, image.Point{}, stddraw.Over)
	if err := jpeg.Encode(&buf, flat, &jpeg.Options{Quality: 85}); err != nil {
		return nil, "", false, fmt.Errorf("imaging: encode a %d×%d JPEG: %w", w, h, err)
	}
	if buf.Len() > MaxBytes {
		return nil, "", false, fmt.Errorf("%w: %.1f MB at %d×%d pixels (the limit is %d MB)", ErrTooLarge, float64(buf.Len())/(1<<20), w, h, MaxBytes>>20)
	}
	return buf.Bytes(), "image/jpeg", true, nil
}

// fit returns w×h scaled so that its longest side is max (at least 1 pixel each way).
func fit(w, h, max int) (int, int) {
	if w >= h {
		return max, clampOne(h * max / w)
	}
	return clampOne(w * max / h), max
}

func clampOne(n int) int {
	if n < 1 {
		return 1
	}
	return n
}
