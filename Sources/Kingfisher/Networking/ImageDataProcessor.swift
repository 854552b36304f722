import Foundation

/// Turns downloaded data into each caller's image, running each distinct processor once.
///
/// Callers whose processors have the same `identifier` share one run and its image (the cache
/// relies on the same rule: one identifier, one output).
struct ImageDataProcessor {
    let data: Data
    let url: URL
    let callers: [DownloadTask]
    /// What the response said about caching it.
    var validators: ResponseValidators? = nil
    /// How the transfer went on the network.
    var metrics: NetworkMetrics? = nil

    /// Processes for every caller still waiting; `onImage` sees each image made.
    func process(onImage: (KFCrossPlatformImage) -> Void) {
        var order: [String] = []
        var groups: [String: [DownloadTask]] = [:]
        for caller in callers {
            let identifier = caller.options.processor.identifier
            if groups[identifier] == nil { order.append(identifier) }
            groups[identifier, default: []].append(caller)
        }
        for identifier in order {
            guard let group = groups[identifier], let first = group.first(where: \.isActive) else { continue }
            let processor = first.options.processor
            let item = ImageProcessItem.data(data)
            let result = processor.processReportingReason(item: item, options: first.options).map { image in
                onImage(image)
                return ImageLoadingResult(image: image, url: url, originalData: data, validators: validators, metrics: metrics)
            }
            for caller in group { caller.downloader.deliver(result, to: caller) }
        }
    }
}
