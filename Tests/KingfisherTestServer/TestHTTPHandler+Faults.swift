import NIOCore
import NIOHTTP1
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The deliveries that break the connection on purpose (see `TestResponse+Faults.swift`).
extension TestHTTPHandler {
    /// Flushes what was written, then resets the connection: `SO_LINGER` 0 makes the close send
    /// a TCP RST, discarding anything still unsent. On HTTP/2 the stream is closed (reset).
    func flushThenReset(_ context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        context.flush()
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer()))), promise: promise)
        promise.futureResult.assumeIsolated().whenComplete { _ in
            guard !self.isHTTP2, let socket = context.channel as? any SocketOptionProvider else {
                return context.close(promise: nil)
            }
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }

    /// Writes `chunk` as one more chunk each time the previous one has been handed to the kernel,
    /// for as long as this exchange lasts (the client leaving, or shutdown, ends it).
    func stream(_ context: ChannelHandlerContext, _ chunk: ByteBuffer) {
        let exchange = self.exchange
        let written = context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk))))
        written.assumeIsolated().whenSuccess {
            guard self.isActive, exchange == self.exchange else { return }
            self.stream(context, chunk)
        }
    }
}
