/** Who is calling (contract §4, §12): a person identified by their token's subject, with the role of their token. */
import type { Role } from './roles.js';

export interface Caller {
  sub: string;
  role: Role;
  /**
   * The name application passwords are stored under: the token's `cognito:username` or `username` claim, else
   * `email`, else `sub` (contract §12); for a Basic credential, the username it was sent with.
   */
  username: string;
}
