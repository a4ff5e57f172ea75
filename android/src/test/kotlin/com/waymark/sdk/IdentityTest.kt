package com.waymark.sdk

import com.waymark.core.PacksListRequest
import com.waymark.core.WaymarkException
import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource

/** App-identity restrictions of private keys, checked by the Rust core. */
class IdentityTest {
    private fun timezoneWith(key: String, identity: com.waymark.core.AppIdentity): String = runBlocking {
        Fixture.open(Fixture.key(key), identity).use { it.timezone(Fixture.andorraTimezone).timezone }
    }

    private inline fun <reified E : WaymarkException> refused(key: String, identity: com.waymark.core.AppIdentity): E =
        assertThrows<E> { timezoneWith(key, identity) }

    @Test
    fun unrestrictedPrivateKeyAnswersWhateverTheIdentity() {
        assertEquals("Europe/Andorra", timezoneWith("private", Fixture.noIdentity))
        assertEquals("Europe/Andorra", timezoneWith("private", Fixture.android("com.any.app", "00".repeat(20))))
        assertEquals("Europe/Andorra", timezoneWith("private", Fixture.ios("com.any.app")))
    }

    @ParameterizedTest
    @ValueSource(booleans = [false, true])
    fun androidKeyAcceptsItsAppWithTheFingerprintInAnyFormat(lowercase: Boolean) {
        val colons = Fixture.androidSha1
        val bare = colons.replace(":", "")
        for (fp in listOf(colons, bare)) {
            val given = if (lowercase) fp.lowercase() else fp
            assertEquals("Europe/Andorra", timezoneWith("android", Fixture.android(Fixture.androidPackage, given)), given)
        }
    }

    @Test
    fun androidKeyRefusesAnotherPackage() {
        val e = refused<WaymarkException.Forbidden>("android", Fixture.android("com.other.app", Fixture.androidSha1))
        assertTrue(e.detail.contains("com.other.app"), e.detail)
    }

    @Test
    fun androidKeyRefusesAnotherSigningCertificate() {
        val other = "AA:" + Fixture.androidSha1.substring(3)
        refused<WaymarkException.Forbidden>("android", Fixture.android(Fixture.androidPackage, other))
    }

    @Test
    fun androidKeyRefusesAMalformedFingerprint() {
        val e = refused<WaymarkException.Forbidden>("android", Fixture.android(Fixture.androidPackage, "not-a-sha1"))
        assertTrue(e.detail.isNotBlank())
    }

    @Test
    fun androidKeyRefusesAMissingIdentity() {
        refused<WaymarkException.Forbidden>("android", Fixture.noIdentity)
        refused<WaymarkException.Forbidden>("android", Fixture.android(Fixture.androidPackage, null))
        refused<WaymarkException.Forbidden>("android", Fixture.ios(Fixture.iosBundle))
    }

    @Test
    fun iosKeyAcceptsItsBundleAndRefusesOthers() {
        assertEquals("Europe/Andorra", timezoneWith("ios", Fixture.ios(Fixture.iosBundle)))
        val e = refused<WaymarkException.Forbidden>("ios", Fixture.ios("com.other.app"))
        assertTrue(e.detail.contains("com.other.app"), e.detail)
        refused<WaymarkException.Forbidden>("ios", Fixture.noIdentity)
        refused<WaymarkException.Forbidden>("ios", Fixture.android(Fixture.androidPackage, Fixture.androidSha1))
    }

    @Test
    fun publicKeyIsRefusedNatively() {
        val e = assertThrows<WaymarkException.Unauthenticated> { Fixture.open(Fixture.key("public")) }
        assertTrue(e.detail.contains("public key"), e.detail)
    }

    @Test
    fun ipRestrictedKeyIsRefusedNatively() {
        refused<WaymarkException.Forbidden>("ip", Fixture.noIdentity)
    }

    @Test
    fun tamperedOrForeignKeysAreRefused() {
        val key = Fixture.key("private")
        val tampered = key.dropLast(2) + (if (key.endsWith("AA")) "BB" else "AA")
        assertThrows<WaymarkException.Unauthenticated> { Fixture.open(tampered) }
        assertThrows<WaymarkException.Unauthenticated> { Fixture.open("wm_prv_garbage") }
    }

    @Test
    fun packManagementNeedsWritePermission() {
        runBlocking {
            Fixture.open(Fixture.key("private")).use { assertThrows<WaymarkException.Forbidden> { runBlocking { it.packs(PacksListRequest()) } } }
            Fixture.open(Fixture.key("private_write")).use { assertEquals(listOf("andorra", "monaco-east", "monaco-west"), it.packs(PacksListRequest()).packs.map { p -> p.id }.sorted()) }
        }
    }

    @Test
    fun certificateFingerprintIsPrintedLikeKeytool() {
        // SHA-1("abc") = A9993E36 4706816A BA3E2571 7850C26C 9CD0D89D
        assertEquals(
            "A9:99:3E:36:47:06:81:6A:BA:3E:25:71:78:50:C2:6C:9C:D0:D8:9D",
            certificateSha1("abc".toByteArray()),
        )
    }
}
