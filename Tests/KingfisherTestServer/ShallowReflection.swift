import Foundation

// Swift Testing describes the values of a failed `#expect` by walking them with `Mirror`, and the
// base of a call such as `origin.requestCount(...)` is one of those values. Walking into these
// objects would read their lock-guarded state without the lock while their event-loop threads
// change it (a dictionary read mid-mutation ends the whole test process with a signal). Each shows
// a one-line summary instead, so a failed expectation is reported, never a crash.

extension TestHTTPServer: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(self, children: ["port": port], displayStyle: .class)
    }
}

extension ServerCore: CustomReflectable {
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .class) }
}

extension TestGate: CustomReflectable {
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .class) }
}

extension ChildProcess: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(self, children: ["pid": pid], displayStyle: .class)
    }
}
