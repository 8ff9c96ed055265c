"""An OTLP/HTTP trace receiver for bench/versus.sh --tracing: answers every POST 200 with an empty
ExportTraceServiceResponse and keeps a running count of exports and bytes in the file named by its second argument."""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

exports = 0
received = 0


class Sink(BaseHTTPRequestHandler):
    def do_POST(self):
        global exports, received
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        exports += 1
        received += len(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()
        with open(sys.argv[2], "w") as out:
            out.write(f"exports={exports} bytes={received}\n")

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink).serve_forever()
