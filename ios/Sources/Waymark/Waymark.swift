// Waymark for iOS: the offline engine with async/await and the app's identity taken from
// Bundle.main (never from the app's code), checked by the Rust core against the key's
// restrictions. NOT COMPILED on the project's machines (no Swift compiler); see ios/README.md.
import Foundation
import WaymarkCore
import WaymarkEngine

/// Every error of the REST contract, one case each (`.forbidden(detail:)`,
/// `.validation(detail:fields:)`, `.rateLimited(detail:retryAfterMs:)`, ...).
public typealias WaymarkError = WaymarkCore.WaymarkError

/// Where the engine keeps its data and which keys it trusts.
public struct WaymarkOptions {
    public var key: String
    public var trustedPublishers: [String]
    public var packsDirectory: URL
    public var stateDirectory: URL
    public var defaultLanguage: String?
    public var rateLimits: Bool

    /// Packs and state under Application Support/waymark.
    public init(key: String, trustedPublishers: [String], defaultLanguage: String? = Locale.current.languageCode, rateLimits: Bool = true) {
        let root = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
            .appendingPathComponent("waymark", isDirectory: true)
        self.key = key
        self.trustedPublishers = trustedPublishers
        self.packsDirectory = root.appendingPathComponent("packs", isDirectory: true)
        self.stateDirectory = root.appendingPathComponent("state", isDirectory: true)
        self.defaultLanguage = defaultLanguage
        self.rateLimits = rateLimits
    }
}

/// Where the app's identity comes from: Bundle.main in apps, explicit in tests.
protocol AppIdentitySource {
    func identity() -> AppIdentity
}

struct BundleIdentitySource: AppIdentitySource {
    func identity() -> AppIdentity {
        AppIdentity(iosBundleId: Bundle.main.bundleIdentifier, androidPackage: nil, androidCertSha1: nil)
    }
}

/// The offline location engine.
public final class Waymark {
    private let native: WaymarkEngine.Waymark

    /// Opens the engine for this app (bundle id from `Bundle.main`).
    public static func open(_ options: WaymarkOptions) throws -> Waymark {
        try open(options, identity: BundleIdentitySource())
    }

    static func open(_ options: WaymarkOptions, identity: AppIdentitySource) throws -> Waymark {
        try FileManager.default.createDirectory(at: options.packsDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: options.stateDirectory, withIntermediateDirectories: true)
        let native = try WaymarkEngine.Waymark.open(config: WaymarkConfig(
            packsDir: options.packsDirectory.path,
            stateDir: options.stateDirectory.path,
            key: options.key,
            trustedPublishers: options.trustedPublishers,
            app: identity.identity(),
            defaultLanguage: options.defaultLanguage,
            rateLimits: options.rateLimits
        ))
        return Waymark(native: native)
    }

    private init(native: WaymarkEngine.Waymark) {
        self.native = native
    }

    /// Runs a synchronous engine call off the caller's actor.
    private func detached<T: Sendable>(_ call: @escaping @Sendable () throws -> T) async throws -> T {
        try await Task.detached(priority: .userInitiated) { try call() }.value
    }

    public var appIdentity: AppIdentity { native.appIdentity() }

    // localities
    public func autocomplete(_ request: AutocompleteRequest) async throws -> AutocompleteResponse {
        try await detached { [native] in try native.localitiesAutocomplete(request: request) }
    }
    public func details(_ request: DetailsRequest) async throws -> DetailsResponse {
        try await detached { [native] in try native.localitiesDetails(request: request) }
    }
    public func geocode(_ request: GeocodeRequest) async throws -> GeocodeResponse {
        try await detached { [native] in try native.localitiesGeocode(request: request) }
    }
    public func nearby(_ request: NearbyRequest) async throws -> NearbyResponse {
        try await detached { [native] in try native.localitiesNearby(request: request) }
    }

    // geolocation
    public func position(_ request: PositionRequest) async throws -> GeolocationResult {
        try await detached { [native] in try native.geolocationPosition(request: request) }
    }
    public func timezone(_ request: TimezoneRequest) async throws -> TimezoneResult {
        try await detached { [native] in try native.geolocationTimezone(request: request) }
    }

    // distance (asynchronous in the core already)
    public func route(_ request: RouteRequest) async throws -> RouteResponse {
        try await native.distanceRoute(request: request)
    }
    public func tolls(_ request: TollsRequest) async throws -> TollsResponse {
        try await native.distanceTolls(request: request)
    }
    public func isochrone(_ request: IsochroneRequest) async throws -> IsochroneResponse {
        try await native.distanceIsochrone(request: request)
    }
    public func matrix(_ request: MatrixCreateRequest) async throws -> MatrixData {
        try await native.distanceMatrix(request: request)
    }
    public func createMatrixJob(_ request: MatrixCreateRequest) async throws -> MatrixCreateResponse {
        try await detached { [native] in try native.distanceMatrixCreate(request: request) }
    }
    public func matrixJobStatus(_ request: MatrixStatusRequest) async throws -> MatrixStatusResponse {
        try await detached { [native] in try native.distanceMatrixStatus(request: request) }
    }
    public func matrixJobResult(_ request: MatrixResultRequest) async throws -> MatrixResult {
        try await detached { [native] in try native.distanceMatrixResult(request: request) }
    }

    // stores, zones, datasets, indoor, three words: same pattern
    public func storesSearch(_ request: StoresSearchRequest) async throws -> StoresSearchResponse {
        try await detached { [native] in try native.storesSearch(request: request) }
    }
    public func updateZones(_ request: ZonesUpdateRequest) async throws -> ZonesUpdateResponse {
        try await detached { [native] in try native.zonesUpdate(request: request) }
    }
    public func updateDataset(_ request: DatasetUpdateRequest) async throws -> Dataset {
        try await native.datasetsUpdate(request: request)
    }
    public func indoorDirections(_ request: IndoorDirectionsRequest) async throws -> IndoorDirectionsResponse {
        try await native.indoorDirections(request: request)
    }
    public func autosuggest(_ request: AutosuggestRequest) async throws -> AutosuggestResponse {
        try await detached { [native] in try native.threewordsAutosuggest(request: request) }
    }

    // packs
    public func packs() async throws -> PacksListResponse {
        try await detached { [native] in try native.packsList() }
    }
    public func installPack(url: String, onProgress: ((InstallProgress) -> Void)? = nil) async throws -> PackInstallStatus {
        try await native.packsInstall(url: url, listener: onProgress.map(ProgressRelay.init))
    }
    public func removePack(id: String) async throws -> PackRemoveResponse {
        try await detached { [native] in try native.packsRemove(packId: id) }
    }
}

private final class ProgressRelay: InstallProgressListener, @unchecked Sendable {
    private let f: (InstallProgress) -> Void
    init(_ f: @escaping (InstallProgress) -> Void) { self.f = f }
    func onProgress(progress: InstallProgress) { f(progress) }
}
