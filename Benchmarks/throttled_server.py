"""Serves one folder on 127.0.0.1 at a fixed rate per response (for the progressive benchmark).

    python3 throttled_server.py FOLDER BYTES_PER_SECOND PORTFILE

Writes the port it listens on to PORTFILE, then serves until killed. Each body goes out in 16 KB
pieces spaced to hold the rate, as a slow network would deliver it.
"""
import http.server
import os
import socketserver
import sys
import time

folder, rate, port_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
piece = 16 * 1024


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        path = os.path.join(folder, os.path.basename(self.path))
        try:
            with open(path, "rb") as f:
                body = f.read()
        except OSError:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        start = time.monotonic()
        for offset in range(0, len(body), piece):
            due = start + offset / rate
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self.wfile.write(body[offset:offset + piece])
            self.wfile.flush()

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


with Server(("127.0.0.1", 0), Handler) as server:
    with open(port_file, "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()
