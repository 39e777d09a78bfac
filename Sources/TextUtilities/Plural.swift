/// A count with its noun in the number English wants: `1 page`, `2 pages`, `0 pages`.
public enum Plural {
    public static func count(_ number: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(number) " + (number == 1 ? singular : plural ?? singular + "s")
    }
}
