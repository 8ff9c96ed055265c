package io.orderflow.edge;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 written byte for byte on a plain socket: for what no HTTP client sends (a NUL in a header value, a
 * Content-Length that is no number) and for counting connections.
 */
final class RawHttp {

    /** Longer than any answer takes; a read still waiting then means the service kept the connection open. */
    private static final int READ_TIMEOUT_MILLIS = 20_000;

    private RawHttp() {
    }

    /** What came back on one connection: the bytes read, and whether the service closed it afterwards. */
    record Exchange(String text, boolean closedByService) {

        String statusLine() {
            int end = text.indexOf("\r\n");
            return end < 0 ? text : text.substring(0, end);
        }

        /** Everything after the blank line that ends the headers. */
        String body() {
            int end = text.indexOf("\r\n\r\n");
            return end < 0 ? "" : text.substring(end + 4);
        }

        String header(String name) {
            for (String line : text.split("\r\n")) {
                if (line.isEmpty()) {
                    return null;
                }
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }

    static Socket connect(URL service) throws IOException {
        Socket socket = new Socket(service.getHost(), service.getPort());
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        return socket;
    }

    /** Sends {@code request} (ISO-8859-1, so every char is one byte) and reads until the service closes. */
    static Exchange send(URL service, String request) throws IOException {
        try (Socket socket = connect(service)) {
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return readToEnd(socket);
        }
    }

    /**
     * Sends {@code request} and reads the answer's status line and headers, not waiting for the connection to end:
     * for answers whose connection the test does not judge.
     */
    static String head(URL service, String request) throws IOException {
        try (Socket socket = connect(service)) {
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; !got.toString(StandardCharsets.ISO_8859_1).contains("\r\n\r\n")
                    && (n = in.read(buffer)) != -1;) {
                got.write(buffer, 0, n);
            }
            String text = got.toString(StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            return end < 0 ? text : text.substring(0, end);
        }
    }

    /** Reads what the service sends until it closes the connection (or the read times out: still open). */
    static Exchange readToEnd(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) != -1;) {
                got.write(buffer, 0, n);
            }
            return new Exchange(got.toString(StandardCharsets.ISO_8859_1), true);
        } catch (SocketTimeoutException stillOpen) {
            return new Exchange(got.toString(StandardCharsets.ISO_8859_1), false);
        } catch (SocketException reset) {
            return new Exchange(got.toString(StandardCharsets.ISO_8859_1), true);
        }
    }
}
