import Foundation
import GalleryKit
import Kingfisher
import KingfisherGTK
import KingfisherGTKShims
import KingfisherTestServer

// gallery [--screenshot FILE.png | --bench-scroll] [--generated N] [URL… | DIR]
//
// With URLs, shows them. With a folder, serves its images from a loopback server. With neither,
// serves the repository's Samples/ (when run from the repository) and N generated images (300).

struct Arguments {
    var urls: [URL] = []
    var folder: URL?
    var screenshot: URL?
    var generated = 300
    var benchmark = false

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--screenshot":
                guard let path = rest.popFirst() else { throw GalleryError.usage("--screenshot needs a file name") }
                screenshot = URL(fileURLWithPath: path)
            case "--generated":
                guard let value = rest.popFirst(), let count = Int(value), count >= 0 else {
                    throw GalleryError.usage("--generated needs a count")
                }
                generated = count
            case "--bench-scroll":
                benchmark = true
            case "-h", "--help":
                throw GalleryError.usage("usage: gallery [--screenshot FILE.png | --bench-scroll] [--generated N] [URL… | DIR]")
            default:
                if let url = URL(string: argument), let scheme = url.scheme, ["http", "https"].contains(scheme) {
                    urls.append(url)
                } else {
                    var isFolder: ObjCBool = false
                    guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder), isFolder.boolValue else {
                        throw GalleryError.usage("not an http(s) URL or a folder: \(argument)")
                    }
                    folder = URL(fileURLWithPath: argument)
                }
            }
        }
    }
}

@MainActor
func start(_ arguments: Arguments) async throws -> (GalleryWindow, TestHTTPServer?) {
    var urls = arguments.urls
    var server: TestHTTPServer?
    if urls.isEmpty {
        let started = try await TestHTTPServer.start()
        server = started
        if let folder = arguments.folder {
            urls = try GalleryImages.serveFolder(folder, on: started)
        } else {
            let samples = URL(fileURLWithPath: "Samples")
            if FileManager.default.fileExists(atPath: samples.path) {
                urls = try GalleryImages.serveFolder(samples, on: started)
            }
            urls += GalleryImages.serveGenerated(count: arguments.generated, on: started)
        }
    }
    // The benchmark's first pass must find nothing cached: it gets a cache of its own.
    let cache = arguments.benchmark ? ImageCache(name: "gallery-bench-\(ProcessInfo.processInfo.processIdentifier)") : .default
    if arguments.benchmark { await cache.clearDiskCache() }
    let gallery = GalleryWindow(urls: urls, cache: cache)
    // Closing the gallery ends the app.
    _ = kf_g_signal_connect_plain(gallery.window, "destroy", { _, _ in exit(0) }, nil, nil)
    gallery.present()
    return (gallery, server)
}

/// What lives as long as the app: the gallery and its server.
var keptAlive: [AnyObject] = []

let arguments: Arguments
do {
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("gallery: \(error)\n".utf8))
    exit(2)
}

MainActor.assumeIsolated {
    do {
        try GTKMainLoop.initialize()
    } catch {
        FileHandle.standardError.write(Data("gallery: cannot open a display (set DISPLAY, or run under xvfb-run)\n".utf8))
        exit(1)
    }
    Task { @MainActor in
        do {
            let (gallery, server) = try await start(arguments)
            if arguments.benchmark {
                let benchmark = GalleryBenchmark(gallery: gallery)
                keptAlive.append(benchmark)
                benchmark.run { report in
                    print(report)
                    gallery.cache.clearDiskCache(completion: {
                        exit(0)
                    })
                }
            }
            if let file = arguments.screenshot {
                gallery.whenCellsShowTheirImages(limit: 60) { ready in
                    do {
                        guard ready else { throw GalleryError.screenshotFailed("the images did not all arrive in 60 s") }
                        try gallery.saveScreenshot(to: file)
                        print("gallery: saved \(file.path)")
                        exit(0)
                    } catch {
                        FileHandle.standardError.write(Data("gallery: \(error)\n".utf8))
                        exit(1)
                    }
                }
            }
            // Keep the window and the server for the life of the app.
            keptAlive += [gallery] + (server.map { [$0] } ?? [])
        } catch {
            FileHandle.standardError.write(Data("gallery: \(error)\n".utf8))
            exit(1)
        }
    }
    GTKMainLoop.run()
}
