import Foundation

/// What a successful retrieval produced.
public struct RetrieveImageResult: Sendable {
    /// The image, processed and modified as the options asked.
    public let image: KFCrossPlatformImage
    /// Where the image came from: `.none` when it was downloaded or provided, otherwise the
    /// cache that held it.
    public let cacheType: CacheType
    /// The source that produced the image (an alternative source when the original failed).
    public let source: Source
    /// The source the caller asked for.
    public let originalSource: Source
    /// The bytes of the image: the downloaded or provided bytes it was made from, or for a memory
    /// or disk hit what the request's cache serializer makes of the image (encoded when called, not
    /// before). `nil` when the serializer cannot encode the image.
    public let data: @Sendable () -> Data?
    /// How the download went on the network, for an image that was downloaded
    /// (``cacheType`` `.none` from a network source); `nil` otherwise.
    public let metrics: NetworkMetrics?

    /// A result; `data` defaults to none.
    public init(
        image: KFCrossPlatformImage, cacheType: CacheType, source: Source, originalSource: Source,
        data: @escaping @Sendable () -> Data? = { nil }, metrics: NetworkMetrics? = nil
    ) {
        self.metrics = metrics
        self.image = image
        self.cacheType = cacheType
        self.source = source
        self.originalSource = originalSource
        self.data = data
    }
}
