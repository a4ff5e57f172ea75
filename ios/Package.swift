// swift-tools-version:5.9
// Waymark for iOS: the Swift wrapper (async/await, identity from Bundle.main) around the
// uniffi-generated bindings of libwaymark_ffi. Build WaymarkFFI.xcframework first:
//   bash ios/build-xcframework.sh
// NOT VERIFIED: no Swift compiler exists on the machines this was written on; see README.md.
import PackageDescription

let package = Package(
    name: "Waymark",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "Waymark", targets: ["Waymark"]),
    ],
    targets: [
        // Static libraries for device and simulator with the C headers and module maps of the
        // two FFI modules (WaymarkCoreFFI, WaymarkFFI).
        .binaryTarget(name: "WaymarkFFI", path: "WaymarkFFI.xcframework"),
        // The generated Swift (written here by ../bindings/generate.sh): the
        // contract types, then the engine, which imports them.
        .target(
            name: "WaymarkCore",
            dependencies: ["WaymarkFFI"],
            path: "Sources/WaymarkCore"
        ),
        .target(
            name: "WaymarkEngine",
            dependencies: ["WaymarkCore", "WaymarkFFI"],
            path: "Sources/WaymarkEngine"
        ),
        .target(
            name: "Waymark",
            dependencies: ["WaymarkCore", "WaymarkEngine"],
            path: "Sources/Waymark"
        ),
        .testTarget(
            name: "WaymarkTests",
            dependencies: ["Waymark"],
            path: "Tests/WaymarkTests"
        ),
    ]
)
