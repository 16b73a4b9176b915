/** A value the contract refuses (a parser's or a domain rule's reason); the request pipeline names the parameter. */
export class ParamError extends Error {}
