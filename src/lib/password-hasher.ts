/** The password hashing port; the argon2id implementation lives in auth/. */
export interface PasswordHasher {
  /** Hashes a password (argon2id encoded string). */
  hash(password: string): Promise<string>;
  /** True when the password matches the encoded hash. */
  verify(encodedHash: string, password: string): Promise<boolean>;
  /**
   * A hash of a fixed password, made once: unknown emails verify against it, so a miss costs as
   * much as a wrong password.
   */
  dummyHash(): Promise<string>;
}
