import Foundation

// TEMPORARY, to be removed by whoever owns Cache/CacheSerializer.swift.
//
// The serializers call `KingfisherWrapper.image(data:options:)` without the generic argument.
// That compiles only while `image` names a single member of `KingfisherWrapper`: once a second
// `image(...)` exists (Kingfisher's `image(withBlendMode:...)`, `image(withCompositingOperation:...)`,
// `image(withRadius:fit:...)`), Swift 6.3 reports "generic parameter 'Base' could not be
// inferred" there. The fix belongs in CacheSerializer.swift, spelling the call
// `KingfisherWrapper<KFCrossPlatformImage>.image(data:options:)`; until then these member
// aliases make the unqualified name mean exactly that inside the two serializers.

extension DefaultCacheSerializer {
    typealias KingfisherWrapper = Kingfisher.KingfisherWrapper<KFCrossPlatformImage>
}

extension FormatIndicatedCacheSerializer {
    typealias KingfisherWrapper = Kingfisher.KingfisherWrapper<KFCrossPlatformImage>
}
