import Foundation

/// How much memory this process may use: its cgroup limit when one is set, capped by the
/// physical memory of the machine.
///
/// Containers (Docker, Kubernetes, systemd slices) limit a process through its control group, and
/// a cache sized from physical memory alone would get the process killed by the OOM killer long
/// before it filled. Both hierarchies are read:
/// - cgroup v2: the `0::/path` line of `/proc/self/cgroup` names the group; `memory.max` is read in
///   that group and in every ancestor up to the mount point, and the smallest number wins (a
///   parent's limit binds its children). `max` means no limit.
/// - cgroup v1: the line listing the `memory` controller names the group under
///   `/sys/fs/cgroup/memory`; `memory.limit_in_bytes` is walked the same way. v1 writes "no limit"
///   as a huge page-aligned number near 2^63, so values ≥ 2^60 are ignored.
///
/// A group that is not visible at its full path (a container without its own cgroup namespace
/// mounts its group as the root) is found by the same walk, since missing files are skipped. The
/// parsing functions take file contents and a root folder so tests can feed them fake trees.
enum ProcessMemory {
    /// Bytes this process may use, computed once for the life of the process.
    static let available: UInt64 = available(
        procSelfCgroup: try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
        cgroupRoot: URL(fileURLWithPath: "/sys/fs/cgroup"),
        physicalMemory: ProcessInfo.processInfo.physicalMemory
    )

    /// Limits at or above this are v1's spelling of "unlimited" (it writes `LONG_MAX` rounded to a page).
    static let unlimitedThreshold: UInt64 = 1 << 60

    /// The memory available given the contents of `/proc/self/cgroup` and the cgroup mount point.
    ///
    /// The v2 tree is looked for at `cgroupRoot` and, on hybrid systems, at `cgroupRoot/unified`;
    /// the v1 memory tree at `cgroupRoot/memory`. Physical memory is the cap and the fallback; a
    /// physical memory of 0 (unknown) leaves the cgroup limit alone.
    static func available(procSelfCgroup: String?, cgroupRoot: URL, physicalMemory: UInt64) -> UInt64 {
        var limits: [UInt64] = []
        if let contents = procSelfCgroup {
            if let path = cgroupV2Path(procSelfCgroup: contents) {
                for root in [cgroupRoot, cgroupRoot.appendingPathComponent("unified")] {
                    if let limit = smallestLimit(root: root, groupPath: path, fileName: "memory.max") {
                        limits.append(limit)
                    }
                }
            }
            if let path = cgroupV1MemoryPath(procSelfCgroup: contents) {
                let root = cgroupRoot.appendingPathComponent("memory")
                if let limit = smallestLimit(root: root, groupPath: path, fileName: "memory.limit_in_bytes") {
                    limits.append(limit)
                }
            }
        }
        if physicalMemory > 0 { limits.append(physicalMemory) }
        return limits.min() ?? physicalMemory
    }

    /// The group path of the v2 line (`0::/path`), or nil when there is none.
    static func cgroupV2Path(procSelfCgroup contents: String) -> String? {
        for line in contents.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            if fields.count == 3, fields[0] == "0", fields[1].isEmpty { return String(fields[2]) }
        }
        return nil
    }

    /// The group path of the v1 line whose controller list includes `memory`, or nil.
    static func cgroupV1MemoryPath(procSelfCgroup contents: String) -> String? {
        for line in contents.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[1].split(separator: ",").contains("memory") { return String(fields[2]) }
        }
        return nil
    }

    /// A limit file's number, or nil for `max`, v1's "unlimited", 0, or anything unreadable.
    static func parseLimit(_ contents: String) -> UInt64? {
        let text = contents.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = UInt64(text), value > 0, value < unlimitedThreshold else { return nil }
        return value
    }

    /// The smallest limit in `fileName` from the group at `groupPath` up to `root` itself.
    ///
    /// `.` and `..` components are dropped so that the walk never leaves `root`.
    static func smallestLimit(root: URL, groupPath: String, fileName: String) -> UInt64? {
        var components = groupPath.split(separator: "/").filter { $0 != "." && $0 != ".." }.map(String.init)
        var smallest: UInt64?
        while true {
            var folder = root
            for component in components { folder.appendPathComponent(component, isDirectory: true) }
            let file = folder.appendingPathComponent(fileName)
            if let contents = try? String(contentsOf: file, encoding: .utf8), let limit = parseLimit(contents) {
                smallest = min(smallest ?? limit, limit)
            }
            if components.isEmpty { break }
            components.removeLast()
        }
        return smallest
    }
}
