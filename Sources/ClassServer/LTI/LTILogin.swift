import Foundation

/// A login begun at `/lti/login` and not yet launched: what the launch that ends it must match.
struct LTILogin: Sendable, Equatable {
    /// The platform that began it.
    var platformID: UUID
    /// The value the launch's `id_token` must carry as its `nonce`.
    var nonce: String
    /// Where the platform said the launch goes, which the `id_token` must say too.
    var targetLinkURI: String
    /// The deployment the login named (`lti_deployment_id`), which the `id_token` must name too.
    var deploymentID: String?
}
