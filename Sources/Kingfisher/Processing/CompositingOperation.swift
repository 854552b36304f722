import Foundation

/// How ``CompositingImageProcessor`` puts the image (the source) onto its background (the
/// destination): the Porter-Duff operators of AppKit's `NSCompositingOperation`, with its raw
/// values (they appear in processor identifiers).
///
/// Formulas on premultiplied values from 0 to 1, colour `s`/`d` and alpha `αs`/`αd`, applied to
/// the colour channels and, with `s = αs`, `d = αd`, to alpha.
public enum CompositingOperation: UInt, Sendable, Hashable, CaseIterable {
    /// `0`: everything transparent.
    case clear = 0
    /// `s`: the source replaces the destination.
    case copy = 1
    /// `s + d·(1 − αs)`: the source in front (ordinary drawing).
    case sourceOver = 2
    /// `s·αd`: the source where the destination is.
    case sourceIn = 3
    /// `s·(1 − αd)`: the source where the destination is not.
    case sourceOut = 4
    /// `s·αd + d·(1 − αs)`: the source drawn on the destination only, keeping its alpha.
    case sourceAtop = 5
    /// `s·(1 − αd) + d`: the source behind the destination.
    case destinationOver = 6
    /// `d·αs`: the destination where the source is.
    case destinationIn = 7
    /// `d·(1 − αs)`: the destination where the source is not.
    case destinationOut = 8
    /// `s·(1 − αd) + d·αs`: the destination on the source only.
    case destinationAtop = 9
    /// `s·(1 − αd) + d·(1 − αs)`: each where the other is not.
    case xor = 10
    /// Core Graphics' `R = max(0, 1 − ((1 − D) + (1 − S)))` for opaque pixels, generalised to
    /// premultiplied values as `αo = min(1, αs + αd)`, `o = max(0, αo − (αs − s) − (αd − d))`: a
    /// subtractive sum, and the source itself over a transparent destination.
    case plusDarker = 11
    /// `min(1, s + d)`, alpha `min(1, αs + αd)`: an additive sum.
    case plusLighter = 13
}
