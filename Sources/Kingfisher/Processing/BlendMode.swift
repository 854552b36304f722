import Foundation

/// How ``BlendImageProcessor`` mixes the image into its background: the blend modes of Core
/// Graphics' `CGBlendMode`, with the same raw values (they appear in processor identifiers).
///
/// Each mode gives a mixed colour `B(Cb, Cs)` of the backdrop `Cb` and the source `Cs` (straight
/// colours from 0 to 1), composited as the W3C Compositing and Blending spec does:
/// `co = cs·(1 − αb) + cb·(1 − αs) + αs·αb·B(Cb, Cs)` and `αo = αs + αb·(1 − αs)`, on premultiplied
/// `cs`, `cb`. Where the backdrop is transparent every mode shows the source as it is.
public enum BlendMode: Int32, Sendable, Hashable, CaseIterable {
    /// `Cs`: the source over the backdrop.
    case normal = 0
    /// `Cb·Cs`: darkens.
    case multiply = 1
    /// `Cb + Cs − Cb·Cs`: lightens.
    case screen = 2
    /// ``hardLight`` with source and backdrop swapped: the backdrop's contrast is kept.
    case overlay = 3
    /// `min(Cb, Cs)`.
    case darken = 4
    /// `max(Cb, Cs)`.
    case lighten = 5
    /// `min(1, Cb / (1 − Cs))`; 0 where `Cb` is 0, 1 where `Cs` is 1.
    case colorDodge = 6
    /// `1 − min(1, (1 − Cb) / Cs)`; 1 where `Cb` is 1, 0 where `Cs` is 0.
    case colorBurn = 7
    /// A gentle ``hardLight``: darkens or lightens the backdrop depending on the source, with
    /// the spec's `D(Cb)` curve (a cubic below 0.25, the square root above).
    case softLight = 8
    /// ``multiply`` by `2·Cs` where `Cs ≤ 0.5`, ``screen`` with `2·Cs − 1` above.
    case hardLight = 9
    /// `|Cb − Cs|`.
    case difference = 10
    /// `Cb + Cs − 2·Cb·Cs`: a softer ``difference``.
    case exclusion = 11
    /// The source's hue with the backdrop's saturation and luminosity.
    case hue = 12
    /// The source's saturation with the backdrop's hue and luminosity.
    case saturation = 13
    /// The source's hue and saturation with the backdrop's luminosity.
    case color = 14
    /// The source's luminosity with the backdrop's hue and saturation.
    case luminosity = 15
}
