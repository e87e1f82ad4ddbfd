package archive

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/ulikunitz/xz/lzma"
)

// MaxXZDict is the largest LZMA2 dictionary an xz stream may ask for:
// 128 MiB, twice what xz -9 uses. The decoder allocates the dictionary a
// block header names before it reads any data, so a few bytes could
// otherwise ask for 4 GiB.
const MaxXZDict = 1 << 27

// maxXZBlocks bounds the blocks checkXZ looks at.
const maxXZBlocks = 1 << 20

// checkXZ reads the xz container (https://tukaani.org/xz/xz-file-format.txt)
// from the end, as xz --list does: for each stream, its footer and index,
// and from the index where each block starts; and refuses the file when a
// block header names a filter other than LZMA2 or a dictionary larger than
// MaxXZDict, or when the container does not add up.
func checkXZ(r io.ReaderAt, size int64) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("not a readable xz stream: %s", fmt.Sprintf(format, args...))
	}
	end := size
	blocks := 0
	for end > 0 {
		// Stream padding: zero bytes in groups of four.
		var word [4]byte
		for end >= 4 {
			if _, err := r.ReadAt(word[:], end-4); err != nil {
				return bad("%v", err)
			}
			if word != [4]byte{} {
				break
			}
			end -= 4
		}
		if end < 24 {
			return bad("%d bytes cannot hold a stream header and footer", end)
		}
		var footer [12]byte
		if _, err := r.ReadAt(footer[:], end-12); err != nil {
			return bad("%v", err)
		}
		if string(footer[10:]) != "YZ" || crc32.ChecksumIEEE(footer[4:10]) != binary.LittleEndian.Uint32(footer[:4]) {
			return bad("no stream footer")
		}
		indexSize := (int64(binary.LittleEndian.Uint32(footer[4:8])) + 1) * 4
		indexStart := end - 12 - indexSize
		if indexStart < 12 || indexSize > 1<<30 {
			return bad("the index does not fit in the file")
		}
		index := make([]byte, indexSize)
		if _, err := r.ReadAt(index, indexStart); err != nil {
			return bad("%v", err)
		}
		records, err := xzIndex(index)
		if err != nil {
			return bad("%v", err)
		}
		var blocksSize int64
		for _, unpadded := range records {
			blocksSize += (unpadded + 3) &^ 3
			if blocksSize > indexStart || blocksSize < 0 {
				return bad("the index lists more blocks than the file holds")
			}
		}
		start := indexStart - blocksSize - 12
		if start < 0 {
			return bad("the index lists more blocks than the file holds")
		}
		var header [12]byte
		if _, err := r.ReadAt(header[:], start); err != nil {
			return bad("%v", err)
		}
		if !bytes.Equal(header[:6], []byte{0xfd, '7', 'z', 'X', 'Z', 0}) || !bytes.Equal(header[6:8], footer[8:10]) {
			return bad("the stream header is not where the index says")
		}
		off := start + 12
		for _, unpadded := range records {
			if blocks++; blocks > maxXZBlocks {
				return refused("more than %d xz blocks", maxXZBlocks)
			}
			if err := checkXZBlock(r, off, unpadded); err != nil {
				return err
			}
			off += (unpadded + 3) &^ 3
		}
		end = start
	}
	return nil
}

// xzIndex reads an index and returns each block's unpadded size.
func xzIndex(b []byte) ([]int64, error) {
	if len(b) < 8 || b[0] != 0 {
		return nil, fmt.Errorf("no index")
	}
	if crc32.ChecksumIEEE(b[:len(b)-4]) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, fmt.Errorf("the index's CRC32 does not match")
	}
	rd := bytes.NewReader(b[1 : len(b)-4])
	n, err := binary.ReadUvarint(rd)
	if err != nil || n > uint64(len(b)) {
		return nil, fmt.Errorf("bad index record count")
	}
	out := make([]int64, 0, n)
	for range n {
		unpadded, err1 := binary.ReadUvarint(rd)
		_, err2 := binary.ReadUvarint(rd)
		if err1 != nil || err2 != nil || unpadded < 5 || unpadded > 1<<62 {
			return nil, fmt.Errorf("bad index record")
		}
		out = append(out, int64(unpadded))
	}
	return out, nil
}

// checkXZBlock reads the block header at off and checks its filters.
func checkXZBlock(r io.ReaderAt, off, unpadded int64) error {
	var first [1]byte
	if _, err := r.ReadAt(first[:], off); err != nil {
		return fmt.Errorf("not a readable xz stream: block header: %v", err)
	}
	if first[0] == 0 {
		return fmt.Errorf("not a readable xz stream: no block header where the index says a block starts")
	}
	size := (int64(first[0]) + 1) * 4
	if size > unpadded {
		return fmt.Errorf("not a readable xz stream: a block header is larger than its block")
	}
	h := make([]byte, size)
	if _, err := r.ReadAt(h, off); err != nil {
		return fmt.Errorf("not a readable xz stream: block header: %v", err)
	}
	if crc32.ChecksumIEEE(h[:size-4]) != binary.LittleEndian.Uint32(h[size-4:]) {
		return fmt.Errorf("not a readable xz stream: a block header's CRC32 does not match")
	}
	flags := h[1]
	rd := bytes.NewReader(h[2 : size-4])
	if flags&0x40 != 0 {
		if _, err := binary.ReadUvarint(rd); err != nil {
			return fmt.Errorf("not a readable xz stream: bad block header")
		}
	}
	if flags&0x80 != 0 {
		if _, err := binary.ReadUvarint(rd); err != nil {
			return fmt.Errorf("not a readable xz stream: bad block header")
		}
	}
	for range int(flags&3) + 1 {
		id, err1 := binary.ReadUvarint(rd)
		n, err2 := binary.ReadUvarint(rd)
		if err1 != nil || err2 != nil || n > uint64(rd.Len()) {
			return fmt.Errorf("not a readable xz stream: bad filter flags")
		}
		props := make([]byte, n)
		if _, err := io.ReadFull(rd, props); err != nil {
			return fmt.Errorf("not a readable xz stream: bad filter flags")
		}
		if id != 0x21 || n != 1 {
			return fmt.Errorf("not a readable xz stream: filter %#x is not supported (pinbot reads LZMA2 only)", id)
		}
		dict, err := lzma.DecodeDictCap(props[0])
		if err != nil {
			return fmt.Errorf("not a readable xz stream: %v", err)
		}
		if dict > MaxXZDict {
			return refused("an xz block asks for a %d-byte dictionary (limit %d)", dict, MaxXZDict)
		}
	}
	return nil
}
