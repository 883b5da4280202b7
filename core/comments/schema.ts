import { z } from "zod";
import { listResponseSchema, pageQueryShape, resourceMetaShape, trimmedText } from "../schema/common.js";
import { commentParentKinds } from "./types.js";

/** The longest body, in characters, after trimming. */
export const maxCommentLength = 10_000;

const bodySchema = trimmedText(maxCommentLength).meta({
  description: `The text, 1 to ${maxCommentLength} characters once leading and trailing white space is trimmed (stored trimmed).`,
});

/** Create body: the parent and the author come from the path and the caller. */
export const commentCreateSchema = z.strictObject({ body: bodySchema }).meta({ id: "CommentCreate" });

/** The body is the only thing an edit changes. */
export const commentUpdateSchema = z.strictObject({ body: bodySchema }).meta({ id: "CommentUpdate" });

export const commentSchema = z
  .object({
    ...resourceMetaShape,
    parentType: z.enum(commentParentKinds).meta({ description: "What the comment is on" }),
    parentId: z.string(),
    body: z.string(),
    createdBy: z.string().nullable().meta({ description: "The author: only they or an admin may edit or delete the comment" }),
    tlp: z.int().meta({
      description: "The marking the comment inherits from its parent (for a task, the higher of the task's and its case's); comments have none of their own",
    }),
    editedAt: z.string().nullable().meta({ format: "date-time", description: "When the body was last edited; null if never" }),
    deletedAt: z.string().nullable().meta({ format: "date-time" }),
    deletedBy: z.string().nullable(),
  })
  .meta({ id: "Comment" });

/** `GET /{cases|alerts|tasks}/{id}/comments`: a thread, oldest first. */
export const commentListQuerySchema = z.strictObject(pageQueryShape);

export const commentListSchema = listResponseSchema(commentSchema).meta({ id: "CommentList" });

export type CommentCreateInput = z.input<typeof commentCreateSchema>;
export type CommentUpdateInput = z.input<typeof commentUpdateSchema>;
