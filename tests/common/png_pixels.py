"""png_pixels.py -- what the browser tests read from a headless Chromium
screenshot: the pixel counts of an 8-bit RGB or RGBA PNG, decoded with the
standard library only (zlib and the five PNG row filters).

    from png_pixels import pixel_counts
    w, h, counts = pixel_counts("shot.png")   # counts: {(r, g, b): pixels}
"""
import struct
import zlib


def pixel_counts(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "%s: not a PNG" % path
    pos, idat, w, h, bpp = 8, b"", 0, 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert w and h, "%s: no IHDR chunk" % path
    raw, stride = zlib.decompress(idat), w * bpp
    prev, counts = bytearray(stride), {}
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, bpp):
            px = tuple(line[x:x + 3])
            counts[px] = counts.get(px, 0) + 1
        prev = line
    return w, h, counts
