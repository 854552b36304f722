import Foundation
import Testing
@testable import Kingfisher

/// Reads fake cgroup trees built in a temporary folder.
@Suite struct ProcessMemoryTests {
    static let gib: UInt64 = 1 << 30
    static let physical: UInt64 = 16 << 30

    /// A fake `/sys/fs/cgroup` with `files` (path relative to the root → contents).
    static func tree(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kf-cgroup-\(UUID().uuidString)")
        for (path, contents) in files {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: file)
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return root
    }

    static func available(_ procSelfCgroup: String?, _ files: [String: String]) throws -> UInt64 {
        let root = try tree(files)
        defer { try? FileManager.default.removeItem(at: root) }
        return ProcessMemory.available(procSelfCgroup: procSelfCgroup, cgroupRoot: root, physicalMemory: physical)
    }

    @Test func findsTheV2Path() {
        #expect(ProcessMemory.cgroupV2Path(procSelfCgroup: "0::/user.slice/app.scope\n") == "/user.slice/app.scope")
        #expect(ProcessMemory.cgroupV2Path(procSelfCgroup: "4:memory:/docker/abc\n0::/\n") == "/")
        #expect(ProcessMemory.cgroupV2Path(procSelfCgroup: "4:memory:/docker/abc\n1:cpu:/\n") == nil)
        #expect(ProcessMemory.cgroupV2Path(procSelfCgroup: "") == nil)
    }

    @Test func findsTheV1MemoryPath() {
        #expect(ProcessMemory.cgroupV1MemoryPath(procSelfCgroup: "5:cpu:/a\n4:memory:/docker/abc\n0::/") == "/docker/abc")
        #expect(ProcessMemory.cgroupV1MemoryPath(procSelfCgroup: "3:cpuacct,memory:/x") == "/x")
        #expect(ProcessMemory.cgroupV1MemoryPath(procSelfCgroup: "0::/only/v2\n9:name=systemd:/") == nil)
        #expect(ProcessMemory.cgroupV1MemoryPath(procSelfCgroup: "garbage") == nil)
    }

    @Test func parsesLimitFiles() {
        #expect(ProcessMemory.parseLimit("536870912\n") == 536_870_912)
        #expect(ProcessMemory.parseLimit("max\n") == nil)
        #expect(ProcessMemory.parseLimit("9223372036854771712\n") == nil)
        #expect(ProcessMemory.parseLimit("0") == nil)
        #expect(ProcessMemory.parseLimit("-5") == nil)
        #expect(ProcessMemory.parseLimit("12 MB") == nil)
        #expect(ProcessMemory.parseLimit("") == nil)
    }

    @Test func v2TakesTheSmallestLimitUpToTheRoot() throws {
        let available = try Self.available("0::/kubepods/pod1/ctr\n", [
            "kubepods/memory.max": "max\n",
            "kubepods/pod1/memory.max": "\(2 * Self.gib)\n",
            "kubepods/pod1/ctr/memory.max": "\(3 * Self.gib)\n",
        ])
        #expect(available == 2 * Self.gib)
    }

    @Test func v2WithNoLimitGivesPhysicalMemory() throws {
        #expect(try Self.available("0::/a/b\n", ["a/memory.max": "max\n", "a/b/memory.max": "max\n"]) == Self.physical)
    }

    @Test func aLimitAbovePhysicalMemoryIsCapped() throws {
        #expect(try Self.available("0::/a\n", ["a/memory.max": "\(64 * Self.gib)\n"]) == Self.physical)
    }

    @Test func aGroupMountedAsTheRootIsFoundByTheWalk() throws {
        // A container without a cgroup namespace: /proc names the host path, the mount is the group.
        #expect(try Self.available("0::/docker/abc\n", ["memory.max": "\(Self.gib)\n"]) == Self.gib)
        #expect(try Self.available("4:memory:/docker/abc\n", ["memory/memory.limit_in_bytes": "\(Self.gib)\n"]) == Self.gib)
    }

    @Test func v1ReadsTheMemoryControllerAndIgnoresUnlimited() throws {
        let proc = "5:cpu,cpuacct:/x\n4:memory:/a\n1:name=systemd:/\n"
        #expect(try Self.available(proc, [
            "memory/memory.limit_in_bytes": "9223372036854771712\n",
            "memory/a/memory.limit_in_bytes": "\(Self.gib / 2)\n",
        ]) == Self.gib / 2)
        #expect(try Self.available(proc, ["memory/a/memory.limit_in_bytes": "9223372036854771712\n"]) == Self.physical)
    }

    @Test func hybridSystemsReadTheUnifiedMount() throws {
        #expect(try Self.available("4:memory:/\n0::/svc\n", ["unified/svc/memory.max": "\(3 * Self.gib)\n"]) == 3 * Self.gib)
    }

    @Test func missingFilesAndGarbageFallBackToPhysicalMemory() throws {
        #expect(try Self.available(nil, [:]) == Self.physical)
        #expect(try Self.available("0::/a\n", [:]) == Self.physical)
        #expect(try Self.available("not a cgroup file", ["memory.max": "\(Self.gib)"]) == Self.physical)
        #expect(try Self.available("0::/a\n", ["a/memory.max": "lots\n", "memory.max": "\u{0}\u{1}"]) == Self.physical)
    }

    @Test func garbageInAChildLeavesTheParentLimit() throws {
        #expect(try Self.available("0::/a/b\n", ["a/memory.max": "\(Self.gib)\n", "a/b/memory.max": "??\n"]) == Self.gib)
    }

    @Test func dotDotComponentsNeverLeaveTheRoot() throws {
        let outer = try Self.tree(["memory.max": "\(Self.gib)\n", "root/placeholder": ""])
        defer { try? FileManager.default.removeItem(at: outer) }
        let root = outer.appendingPathComponent("root")
        let available = ProcessMemory.available(procSelfCgroup: "0::/../..\n", cgroupRoot: root, physicalMemory: Self.physical)
        #expect(available == Self.physical)
    }

    @Test func thisProcessHasSomeMemory() {
        #expect(ProcessMemory.available > 0)
        #expect(ProcessMemory.available <= ProcessInfo.processInfo.physicalMemory)
        #expect(MemoryStorage.Config.defaultTotalCostLimit == Int(ProcessMemory.available / 4))
    }
}
