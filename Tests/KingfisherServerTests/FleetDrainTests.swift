import Foundation
import KingfisherTestServer
import Testing
@testable import KingfisherServer

@Suite("kf serve drains before it stops")
struct FleetDrainTests {
    @Test("SIGTERM: /health is 503 at once, requests are still served, then the listener closes, in-flight finish, exit 0")
    func drainOnSigterm() async throws {
        // A drain far longer than the test, ended by a second signal once the request held at
        // the origin is in flight: on a loaded machine a short drain could close the listener
        // before that request connects, and the test would wait for it in vain.
        try await FleetServe.run(["--drain-seconds", "60"]) { serve, origin in
            let gate = TestGate()
            origin.route("/now.jpg", .ok(ServeKit.jpeg, contentType: "image/jpeg"))
            origin.route("/held.jpg", .held(ServeKit.jpeg, gate: gate))
            let health = try await serve.get("/health")
            #expect(health.status == 200 && health.text == "ok\n")
            #expect(try await serve.get("/healthcheck").status == 200)

            serve.process.signal(SIGTERM)
            let signalled = ContinuousClock.now
            let draining = try await serve.waitForStatus(503, of: "/health")
            #expect(draining.text == "draining")
            let thumborHealth = try await serve.get("/healthcheck")
            #expect(thumborHealth.status == 503 && thumborHealth.text == "draining")

            // Made during the drain: served, and the client is asked to reconnect elsewhere.
            let image = try await serve.get(serve.path(origin.url("/now.jpg")))
            #expect(image.status == 200)
            #expect(image.header("Content-Type") == "image/png")
            #expect(image.header("Connection") == "close")

            // Made during the drain and still in flight when the listener closes: answered.
            let held = Task { try await serve.get(serve.path(origin.url("/held.jpg"))) }
            await origin.waitUntilRequestCount(for: "/held.jpg", reaches: 1)
            #expect(serve.isAccepting(), "the listener closed \(ContinuousClock.now - signalled) after SIGTERM, within the drain")
            serve.process.signal(SIGTERM)
            while serve.isAccepting() { try await Task.sleep(for: .milliseconds(10)) }
            gate.open()
            let heldAnswer = try await held.value
            #expect(heldAnswer.status == 200 && !heldAnswer.body.isEmpty)

            #expect(await serve.process.exited() == .exited(0))
            let started = try await serve.output.line(containing: "draining on SIGTERM")
            #expect(started.contains("notice"))
            let ended = try await serve.output.line(containing: "drained after")
            #expect(ended.contains("cut the wait short"))
            // A balancer polls /health all through the drain: its 503 is routine, not a warning.
            let poll = try await serve.output.line(containing: "status=503")
            #expect(poll.contains(" info ") && poll.contains("reason=draining") && poll.contains("GET /health"))
        }
    }

    @Test("A second signal ends the wait at once: SIGINT drains, SIGTERM then closes, exit 0")
    func secondSignalSkipsTheWait() async throws {
        try await FleetServe.run(["--drain-seconds", "30"]) { serve, _ in
            serve.process.signal(SIGINT)
            let signalled = ContinuousClock.now
            _ = try await serve.waitForStatus(503, of: "/health")
            _ = try await serve.output.line(containing: "draining on SIGINT")
            serve.process.signal(SIGTERM)
            #expect(await serve.process.exited() == .exited(0))
            let elapsed = ContinuousClock.now - signalled
            #expect(elapsed < .seconds(15), "exited \(elapsed) after the first signal of a 30 s drain")
            let ended = try await serve.output.line(containing: "drained after")
            #expect(ended.contains("a second signal cut the wait short"))
        }
    }

    @Test("--drain-seconds 0 closes at once and still exits with 0")
    func noWait() async throws {
        try await FleetServe.run(["--drain-seconds", "0"]) { serve, _ in
            #expect(try await serve.get("/health").status == 200)
            serve.process.signal(SIGTERM)
            #expect(await serve.process.exited() == .exited(0))
            _ = try await serve.output.line(containing: "drained after")
        }
    }

    @Test("bad --drain-seconds is a usage error", arguments: ["-1", "nan", "4000", "soon"])
    func badDrainSeconds(_ value: String) async throws {
        // Bounded: were the value accepted, kf serve would run until stopped.
        let run = try await ChildProcess.run(
            try ShutdownTests.kfURL().path,
            ["serve", "--port", "0", "--key", "k", "--allow-host", "a.example", "--drain-seconds=\(value)"],
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KF_SERVE_") }, timeLimit: 30)
        #expect(run.termination == .exited(2))
        #expect(String(decoding: run.standardError, as: UTF8.self).contains("drain-seconds"))
    }
}
