/// The Catalog API's OpenAPI 3 document (`catalog-openapi.yaml` beside this file, built into the
/// server) and its error codes.
enum CatalogDocument {
    /// The document, as `GET /v1/openapi.yaml` serves it.
    static var openAPI: [UInt8] { PackageResources.catalog_openapi_yaml }

    /// Whether a request is a call of the Catalog API, whose error codes are written in capitals.
    static func isCatalogPath(_ path: String) -> Bool {
        path.hasPrefix("/v1/contexts") || path.hasPrefix("/v1/thumbnails") || path.hasPrefix("/v1/status")
    }

    /// An error code as the Catalog API writes it: `thumbnailNotReferenced` as `THUMBNAIL_NOT_REFERENCED`.
    static func code(of name: String) -> String {
        var code = ""
        for character in name {
            if character.isUppercase, !code.isEmpty { code.append("_") }
            code.append(contentsOf: character.uppercased())
        }
        return code
    }
}
