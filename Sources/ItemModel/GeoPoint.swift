#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TextUtilities

/// A place on the earth in WGS 84 degrees, as CoreSpotlight's `latitude`/`longitude` and
/// schema.org's `GeoCoordinates` give it.
public struct GeoPoint: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Latitude −90…90 and longitude −180…180, both finite: every point the item contract
    /// lets into the index.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }

    /// The mean earth radius (IUGG), in kilometres.
    package static let earthRadius = 6371.0088

    /// The great-circle distance to `other` in kilometres (haversine; within 0.5 % of the
    /// ellipsoid's, which is closer than any page's coordinates are).
    public func distance(to other: GeoPoint) -> Double {
        Self.kilometres(haversine: Self.haversine(self, cosine: cos(latitude * Self.radians), other, cosine: cos(other.latitude * Self.radians)))
    }

    package static let radians = Double.pi / 180

    /// The haversine of the central angle between `a` and `b`, given the cosines of their
    /// latitudes (a search near a place computes its center's once, not per place).
    @inline(__always)
    package static func haversine(_ a: GeoPoint, cosine cosA: Double, _ b: GeoPoint, cosine cosB: Double) -> Double {
        let halfLatitude = sin((b.latitude - a.latitude) * radians / 2)
        let halfLongitude = sin((b.longitude - a.longitude) * radians / 2)
        return halfLatitude * halfLatitude + cosA * cosB * halfLongitude * halfLongitude
    }

    /// The distance a haversine stands for, in kilometres.
    @inline(__always)
    package static func kilometres(haversine h: Double) -> Double { 2 * earthRadius * asin(min(1, sqrt(h))) }

    /// Reads `lat,lng` (`48.8566,2.3522`), as `near=` gives it; nil unless both are numbers
    /// in range.
    public init?(parameter text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.utf8.count <= 32 }),
            let latitude = Double(parts[0].trimmingASCIIWhitespace()), let longitude = Double(parts[1].trimmingASCIIWhitespace())
        else { return nil }
        self.init(latitude: latitude, longitude: longitude)
        guard isValid else { return nil }
    }

    /// `lat,lng`, as ``init(parameter:)`` reads it.
    public var parameter: String { "\(latitude),\(longitude)" }
}

/// The places within ``radius`` kilometres of ``center``: the `near=lat,lng&radius=km` of a
/// search.
public struct GeoCircle: Sendable, Hashable {
    public var center: GeoPoint
    /// In kilometres, more than 0 and at most ``maximumRadius``.
    public var radius: Double

    /// The radius when a search gives none.
    public static let defaultRadius = 10.0
    /// Half the earth's circumference: every place.
    public static let maximumRadius = 20_016.0

    public init(center: GeoPoint, radius: Double = defaultRadius) {
        self.center = center
        self.radius = radius
    }

    public var isValid: Bool { center.isValid && radius.isFinite && radius > 0 && radius <= Self.maximumRadius }

    /// Whether `point` lies within the circle.
    public func contains(_ point: GeoPoint) -> Bool { center.distance(to: point) <= radius }

    /// Latitude and longitude ranges that hold the circle (one, or two where it crosses the
    /// antimeridian), for the grid of places (``PlaceGrid``): every place within the radius is in one of them.
    public var boxes: [(latitude: ClosedRange<Double>, longitude: ClosedRange<Double>)] {
        // A degree of latitude is at least 110.57 km; a little slack covers rounding.
        let dLatitude = radius / 110.5
        let south = center.latitude - dLatitude, north = center.latitude + dLatitude
        let latitude = max(-90, south)...min(90, north)
        // Over a pole, or so wide that any longitude may be in: every longitude.
        guard south > -90, north < 90 else { return [(latitude, -180...180)] }
        let widest = max(abs(south), abs(north)) * Double.pi / 180
        let dLongitude = dLatitude / cos(widest)
        guard dLongitude < 180 else { return [(latitude, -180...180)] }
        let west = center.longitude - dLongitude, east = center.longitude + dLongitude
        if west < -180 { return [(latitude, (west + 360)...180), (latitude, -180...east)] }
        if east > 180 { return [(latitude, west...180), (latitude, -180...(east - 360))] }
        return [(latitude, west...east)]
    }
}
