// Package texture reads and writes BPX textures (type 'T', spec rev 2 §11):
// a TypeExt describing the pixel format and size, and one PixelArray section
// (type 1) holding the pixels of every layer. It converts textures to and
// from image.Image, so that a PNG decoded by image/png can become a BPX
// texture and back.
//
// No other implementation of this type exists (the reference SDK never built
// it), so the byte layout below is this package's reading of the spec, where
// the spec is silent resolved the way a little-endian C compiler lays out the
// structure of the field table.
//
// # TypeExt
//
// The 16 TypeExt bytes of the main header hold, as the C structure
//
//	struct { uint16_t array; uint8_t width:4, height:4; uint8_t format:4, flags:4;
//	         uint8_t mipmaps; uint8_t reserved[9]; }
//
// (little-endian; GCC, Clang and MSVC put the first bit-field in the low
// bits):
//
//	bytes 0-1   Array, uint16: number of layers of a texture array
//	byte  2     low nibble Width k, high nibble Height k: 2^(k+1) pixels
//	byte  3     low nibble Format (1 RGB, 2 RGBA, 3 GreyScale, 4 Float),
//	            high nibble Flags (1 Array, 2 Compressed, 4 CubeMap)
//	byte  4     MipMap level count
//	bytes 5-15  reserved, zero (the spec's fields add up to 112 bits; the
//	            last 2 bytes lie beyond its structure and are zero too)
//
// Width and height are therefore powers of two from 2 to 65536 pixels:
// a 1-pixel side cannot be expressed.
//
// # Layers
//
// Following §11.3.4, Array counts only when a flag asks for it:
//   - CubeMap set: Array must be 6 and the texture has 6 layers, in the
//     order +X, -X, +Y, -Y, +Z, -Z (the order of OpenGL and Direct3D; the
//     spec names none);
//   - Array set (without CubeMap): Array layers, or 1 when Array is 0 ("not a
//     texture array");
//   - neither: 1 layer, whatever Array holds (it is kept as read).
//
// Compressed and the MipMap level count are hints for the loader (compress
// on the GPU, generate mip maps); they add no data.
//
// # PixelArray
//
// The layers follow one another without padding; each layer is
// height rows of width pixels, top row first, left to right. A pixel is 3
// bytes R, G, B (RGB), 4 bytes R, G, B, A with straight (not premultiplied)
// alpha (RGBA), 1 byte (GreyScale) or a little-endian IEEE 754 float32
// (Float). The section must hold exactly layers × width × height × pixel
// size bytes.
//
// # Images
//
// [Texture.Image] returns RGBA layers as *image.NRGBA and GreyScale layers as
// *image.Gray sharing the texture's bytes, RGB layers as a new *image.NRGBA
// with opaque alpha, and Float layers as a *[Gray32F], this package's
// float32 image whose color model is color.Gray16Model (values clamped to
// [0, 1]), so image/png writes it as a 16-bit grey PNG. [FromImage] and
// [FromImages] go the other way from any image.Image; a side that is not a
// power of two from 2 to 65536 is an error naming the size to resize or pad
// to.
//
// # Errors
//
// Malformed files give a *bpx.FormatError that matches both bpx.ErrFormat and
// [ErrFormat] and names the offset: a file offset for the main header (the
// TypeExt starts at byte 24), a section offset otherwise. Bad arguments to
// the constructors match [ErrInvalid].
//
// # Security
//
// [Read] treats the file as hostile. It never panics and checks the
// PixelArray's declared size against the TypeExt before reading it, so it
// allocates at most that size, which a TypeExt can make at most
// bpx.DefaultMaxSectionSize (4 GiB - 1) bytes; lower the bound with
// bpx.WithMaxSectionSize when opening the container. A compressed section
// that decodes to more or fewer bytes than declared is an error from the
// container (see bpx.Section.Data).
package texture
