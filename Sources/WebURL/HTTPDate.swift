import CCurl

/// Dates as HTTP and the mail-derived formats of the web write them — IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850, asctime, and the looser variants libcurl
/// accepts — read by libcurl's `curl_getdate`, the one parser of HTTP dates here.
/// <https://curl.se/libcurl/c/curl_getdate.html>
public enum HTTPDate {
    /// Seconds since 1970, or nil when `text` is not a date libcurl can read.
    public static func seconds(from text: String) -> Double? {
        let result = curl_getdate(text, nil)
        return result == -1 ? nil : Double(result)
    }

    /// `Retry-After` (RFC 9110 §10.2.3) as seconds from `now`: a delay in seconds or an
    /// HTTP date, never negative and at most a day.
    public static func retryAfter(_ value: String?, now: Double) -> Double? {
        guard let value = value?.trimmingCharacters(in: " \t") else { return nil }
        if let seconds = Double(value), seconds >= 0, seconds.isFinite { return min(seconds, 86_400) }
        guard let date = seconds(from: value) else { return nil }
        return min(max(0, date - now), 86_400)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
