/** htmlparser2's tokenizer, bundled as a file of its own for the Lambda functions (infra/bundling.ts). */
export { Tokenizer } from 'htmlparser2';
