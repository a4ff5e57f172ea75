package com.waymark.sdk

import android.content.Context
import android.content.pm.PackageManager
import com.waymark.core.AppIdentity
import java.security.MessageDigest

/**
 * Where the app's identity comes from. On Android it is [AndroidAppIdentitySource] (the OS's
 * package name and signing certificate); the JVM tests give explicit identities. Internal so
 * that app code opens Waymark with a `Context` and cannot claim another app's identity through
 * this library.
 */
internal fun interface AppIdentitySource {
    fun identity(): AppIdentity
}

/** The identity of the running Android app, from `PackageManager`. */
internal class AndroidAppIdentitySource(private val context: Context) : AppIdentitySource {
    override fun identity(): AppIdentity {
        val packageName = context.packageName
        val certificate = signingCertificate(context.packageManager, packageName)
        return AppIdentity(
            iosBundleId = null,
            androidPackage = packageName,
            androidCertSha1 = certificate?.let(::certificateSha1),
        )
    }

    /** The DER bytes of the app's (current) signing certificate. */
    @Suppress("DEPRECATION")
    private fun signingCertificate(pm: PackageManager, packageName: String): ByteArray? {
        // API 28+: GET_SIGNING_CERTIFICATES and PackageInfo.signingInfo (reached by reflection:
        // this library compiles against the API-16 stubs).
        try {
            val flag = PackageManager::class.java.getField("GET_SIGNING_CERTIFICATES").getInt(null)
            val info = pm.getPackageInfo(packageName, flag)
            val signingInfo = info.javaClass.getField("signingInfo").get(info)
            if (signingInfo != null) {
                val signers = signingInfo.javaClass.getMethod("getApkContentsSigners").invoke(signingInfo)
                    as Array<*>
                val first = signers.firstOrNull() as? android.content.pm.Signature
                if (first != null) return first.toByteArray()
            }
        } catch (_: ReflectiveOperationException) {
            // older Android: fall through
        }
        val info = pm.getPackageInfo(packageName, PackageManager.GET_SIGNATURES)
        return info.signatures?.firstOrNull()?.toByteArray()
    }
}

/** SHA-1 of a certificate, as `keytool` prints it: upper-case hex pairs joined by colons. */
fun certificateSha1(der: ByteArray): String =
    MessageDigest.getInstance("SHA-1").digest(der).joinToString(":") { "%02X".format(it) }
