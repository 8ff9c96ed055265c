package io.orderflow.common.json;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.core.io.InputDecorator;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.io.Reader;

/**
 * JSON between systems is UTF-8 (RFC 8259 §8.1), but Jackson guesses UTF-16 and UTF-32 from a byte-order mark or
 * the zero bytes of their ASCII characters, and would read such a body as the same request. A body is one meaning or
 * it is refused: its first bytes are looked at before Jackson's guess, and a UTF-16/32 mark or a zero byte (never in
 * UTF-8 JSON, which escapes U+0000) is a 400 malformed-body problem.
 */
final class Utf8Only extends InputDecorator {

    private static final int LOOK = 4;

    @Override
    public InputStream decorate(IOContext context, InputStream in) throws IOException {
        PushbackInputStream stream = new PushbackInputStream(in, LOOK);
        byte[] head = stream.readNBytes(LOOK);
        refuseUnlessUtf8(head, 0, head.length);
        stream.unread(head);
        return stream;
    }

    @Override
    public InputStream decorate(IOContext context, byte[] src, int offset, int length) throws IOException {
        refuseUnlessUtf8(src, offset, Math.min(length, LOOK));
        return null; // read the array as it is
    }

    @Override
    public Reader decorate(IOContext context, Reader reader) {
        return reader; // already characters: nothing to guess
    }

    private static void refuseUnlessUtf8(byte[] bytes, int offset, int length) throws JsonParseException {
        for (int i = offset; i < offset + length; i++) {
            int b = bytes[i] & 0xff;
            if (b == 0x00 || b == 0xfe || b == 0xff) { // never in UTF-8: a zero byte, or half of a UTF-16 mark
                throw new JsonParseException(null, "The body is not UTF-8: JSON between systems is UTF-8 (RFC 8259)");
            }
        }
    }
}
