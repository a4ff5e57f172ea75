// Waymark for iOS: the offline engine with async/await and the app's identity taken from
// Bundle.main (never from the app's code), checked by the Rust core against the key's
// restrictions. NOT COMPILED on the project's machines (no Swift compiler); see ios/README.md.
import Foundation
#if canImport(UIKit)
import UIKit
#endif
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
    /// The generated binding (used by the generated operations in WaymarkOperations.swift).
    let native: WaymarkEngine.Waymark

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

    /// The memory-warning observer `init` registered (removed by `deinit`).
    private var memoryWarning: NSObjectProtocol?

    private init(native: WaymarkEngine.Waymark) {
        self.native = native
        #if canImport(UIKit)
        memoryWarning = NotificationCenter.default.addObserver(
            forName: UIApplication.didReceiveMemoryWarningNotification, object: nil, queue: nil
        ) { [weak self] _ in
            _ = self?.releaseMemory()
        }
        #endif
    }

    deinit {
        if let observer = memoryWarning {
            NotificationCenter.default.removeObserver(observer)
        }
    }

    /// Hands memory back to the system without closing anything: the buffers kept between
    /// requests are dropped and the pages of the packs' mapped routing layouts leave the
    /// process (clean file pages, which iOS does not count in the app's footprint anyway).
    /// Answers are unchanged. Called on every memory warning.
    @discardableResult
    public func releaseMemory() -> ReleasedMemory {
        native.releaseMemory()
    }

    /// Unmaps the pages of the packs' mapped routing layouts only, keeping the buffers kept
    /// between requests: for an app that holds its resident set under a ceiling.
    @discardableResult
    public func releaseMappedPages() -> ReleasedMemory {
        native.releaseMappedPages()
    }

    /// Runs a synchronous engine call off the caller's actor.
    func detached<T: Sendable>(_ call: @escaping @Sendable () throws -> T) async throws -> T {
        try await Task.detached(priority: .userInitiated) { try call() }.value
    }

    public var appIdentity: AppIdentity { native.appIdentity() }

    // Every operation of the endpoint table is a method in WaymarkOperations.swift (generated).
    // The native variants:

    /// The whole matrix, computed now and awaited (no 200-element limit).
    public func matrix(_ request: MatrixCreateRequest) async throws -> MatrixData {
        try await native.distanceMatrix(request: request)
    }

    /// Installs the pack at `url` (resumable, verified, atomic) and awaits it; `onProgress`
    /// hears each step. (`startPackInstall` starts the same install as a job.)
    public func installPack(url: String, onProgress: ((InstallProgress) -> Void)? = nil) async throws -> PackInstallStatus {
        try await native.installPack(url: url, listener: onProgress.map(ProgressRelay.init))
    }
}

private final class ProgressRelay: InstallProgressListener, @unchecked Sendable {
    private let f: (InstallProgress) -> Void
    init(_ f: @escaping (InstallProgress) -> Void) { self.f = f }
    func onProgress(progress: InstallProgress) { f(progress) }
}
